import ctypes, numpy as np, time, sys
from scipy.linalg import lapack
libs={'old':ctypes.CDLL(__import__('os').environ['LIB_BEFORE']),'new':ctypes.CDLL(__import__('os').environ['LIB_AFTER'])}
for n in (500,1000,2000,3000,4000):
    A=np.random.default_rng(1).standard_normal((n,n)); an=np.abs(A).sum(0).max()
    lu,piv,info=lapack.dgetrf(A); lu=np.asfortranarray(lu); ip=(piv+1).astype(np.int32)
    row=[n]
    for k in ('old','new','old','new'):
        f=libs[k].hetlu_dgecon; f.argtypes=[ctypes.c_int,ctypes.c_void_p,ctypes.c_int,ctypes.c_void_p,ctypes.c_double,ctypes.POINTER(ctypes.c_double)]
        r=ctypes.c_double(); best=1e9
        for _ in range(5):
            t=time.perf_counter(); f(n,lu.ctypes.data,n,ip.ctypes.data,an,ctypes.byref(r)); best=min(best,time.perf_counter()-t)
        row.append((k,round(best*1e3,2),'%.4g'%r.value))
    t=time.perf_counter(); lapack.dgecon(lu,an); row.append(('lapack',round((time.perf_counter()-t)*1e3,2)))
    print(row)
