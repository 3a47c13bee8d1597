import ctypes, numpy as np, os
os.environ.setdefault("OMP_NUM_THREADS","1")
H = ctypes.CDLL(os.environ.get("HETLU_LAPACK", "build/lapack/libhetlu_lapack.so"), mode=os.RTLD_LOCAL)
O = ctypes.CDLL("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", mode=os.RTLD_LOCAL)
I = ctypes.c_int
def P(a): return a.ctypes.data_as(ctypes.c_void_p)
def dsgesv(lib, A, B, lda=None, ldb=None, ldx=None, nrhs=None, X=None, cplx=False):
    A = np.array(A, dtype=complex if cplx else float, order='F'); B = np.array(B, dtype=A.dtype, order='F')
    if B.ndim == 1: B = B.reshape(-1,1, order='F')
    n = A.shape[0]; nr = B.shape[1] if nrhs is None else nrhs
    lda = lda or max(1,A.shape[0]); ldb = ldb or max(1,B.shape[0]); ldx = ldx or max(1,n)
    if X is None: X = np.full((max(ldx,1), max(nr,1)), 777.0, dtype=A.dtype, order='F')
    ipiv = np.zeros(max(n,1), dtype=np.int32)
    work = np.zeros(max(n*max(nr,1),1)+10, dtype=A.dtype)
    swork = np.zeros(n*(n+max(nr,1))+10, dtype=np.complex64 if cplx else np.float32)
    rwork = np.zeros(max(n,1)+10)
    it = I(-99); info = I(-99)
    if cplx:
        lib.zcgesv_(ctypes.byref(I(n)), ctypes.byref(I(nr)), P(A), ctypes.byref(I(lda)), P(ipiv), P(B), ctypes.byref(I(ldb)), P(X), ctypes.byref(I(ldx)), P(work), P(swork), P(rwork), ctypes.byref(it), ctypes.byref(info))
    else:
        lib.dsgesv_(ctypes.byref(I(n)), ctypes.byref(I(nr)), P(A), ctypes.byref(I(lda)), P(ipiv), P(B), ctypes.byref(I(ldb)), P(X), ctypes.byref(I(ldx)), P(work), P(swork), ctypes.byref(it), ctypes.byref(info))
    return dict(A=A, X=X, ipiv=ipiv, iter=it.value, info=info.value, work=work, swork=swork)
def omega(A, X, B):
    A = np.asarray(A); X = np.asarray(X); B = np.asarray(B)
    if B.ndim==1: B=B.reshape(-1,1); 
    X = X[:A.shape[0], :B.shape[1]]
    if not np.all(np.isfinite(X)): return float('nan')
    R = B - A@X
    ab = lambda z: np.abs(z.real)+np.abs(z.imag) if np.iscomplexobj(z) else np.abs(z)
    den = ab(A)@ab(X) + ab(B)
    with np.errstate(all='ignore'):
        w = np.where(den>0, ab(R)/den, np.where(ab(R)>0, np.inf, 0))
    return w.max() if w.size else 0.0
def both(A, B, **kw):
    h = dsgesv(H, A, B, **kw); o = dsgesv(O, A, B, **kw)
    return h, o
def randsvd(n, kappa, rng, cplx=False):
    def q():
        M = rng.standard_normal((n,n)) + (1j*rng.standard_normal((n,n)) if cplx else 0)
        return np.linalg.qr(M)[0]
    s = kappa**(-np.arange(n)/(n-1))
    return (q()*s)@q()
def show(tag, A, B, **kw):
    h, o = both(A, B, **kw)
    n = np.asarray(A).shape[0]
    eps = 2**-53
    wh = omega(A, h['X'], B) if h['info']==0 else None
    wo = omega(A, o['X'], B) if o['info']==0 else None
    print(f"{tag}: hetlu iter={h['iter']} info={h['info']} omega={wh if wh is None else wh/((n+1)*eps):.3g}x(n+1)u | openblas iter={o['iter']} info={o['info']} omega={wo if wo is None else wo/((n+1)*eps):.3g}x(n+1)u" if (wh is not None and wo is not None) else f"{tag}: hetlu iter={h['iter']} info={h['info']} om={wh} | ob iter={o['iter']} info={o['info']} om={wo}")
    return h, o
