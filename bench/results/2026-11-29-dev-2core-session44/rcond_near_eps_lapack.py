import numpy as np, scipy.linalg.lapack as L, sys
eps=np.finfo(float).eps/2
def svx(A,b):
    if np.iscomplexobj(A):
        r=L.zgesvx(A,b)
    else:
        r=L.dgesvx(A,b)
    # returns (as, lu, ipiv, equed, rs, cs, b, x, rcond, ferr, berr, info)
    x,rcond,ferr,info=r[7],r[8],r[9],r[11]
    return x,rcond,ferr[0],info
def truex(A,b):
    # in long double via refinement
    Al=A.astype(np.clongdouble if np.iscomplexobj(A) else np.longdouble)
    x=np.linalg.solve(A,b)
    for _ in range(6):
        r=(b-Al@x); x=x+np.linalg.solve(A,r.astype(A.dtype))
    return x
rows=[]
for cplx in (False,True):
  for n in (100,300,600):
    for seed in range(8):
      rng=np.random.default_rng(seed)
      A=rng.standard_normal((n,n)); 
      if cplx: A=A+1j*rng.standard_normal((n,n))
      b=np.ones(n,A.dtype)
      j=n//2
      B=A.copy(); B[:,j]=A[:,j-1]*(1+1e-13*(1j if cplx else 1))
      x,rc,fe,info=svx(B,b)
      rows.append(('neardup',cplx,n,seed,rc/eps,fe,info))
      # LAWN type 9-ish: kappa = 0.1/eps, geometric singular values
      for kappa in (0.1/eps, 1/eps):
        U,_=np.linalg.qr(rng.standard_normal((n,n))); V,_=np.linalg.qr(rng.standard_normal((n,n)))
        s=np.logspace(0,-np.log10(kappa),n)
        C=(U*s)@V.T
        if cplx: C=C.astype(complex)
        x,rc,fe,info=svx(C,b)
        xt=np.linalg.lstsq(C,b,rcond=None)[0] if False else None
        rows.append(('k%.0e'%kappa,cplx,n,seed,rc/eps,fe,info))
for r in rows: print(*r)
