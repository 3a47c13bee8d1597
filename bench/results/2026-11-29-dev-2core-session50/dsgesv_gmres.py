# Drop-in dsgesv_ (GMRES-IR under LAPACK's normwise test) vs OpenBLAS dsgesv_ on a nearly singular integer matrix.
# Run: OMP_NUM_THREADS=1 PYTHONPATH=/tmp/h50-mixed /usr/bin/python3 repro_gmres_dropin.py
from dsgesv_harness import *
import scipy.linalg as sl
rng=np.random.default_rng(14)
u=2**-53
for n,delta in ((300,1e-10),(40,0.0)):
    M=rng.integers(-3,4,(n,n)).astype(float); M[:,-1]=M[:,0]+M[:,1]+delta*rng.standard_normal(n); B=rng.standard_normal((n,2))
    h,o=both(M,B)
    xd=np.linalg.solve(M,B)
    print(f"n={n} delta={delta}: hetlu ITER={h['iter']} INFO={h['info']} omega={omega(M,h['X'],B)/((n+1)*u):.3g}(n+1)u ; "
          f"OpenBLAS ITER={o['iter']} INFO={o['info']} omega={omega(M,o['X'],B)/((n+1)*u):.3g}(n+1)u ; dgesv omega={omega(M,xd,B)/((n+1)*u):.3g}(n+1)u")
