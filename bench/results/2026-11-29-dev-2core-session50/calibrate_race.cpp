// K threads solve random float/double systems with CALU/GEPP (C API, getrf+getrs) while one
// thread runs hetlu::calibrate on the same database. Any failure on a random well-conditioned
// matrix, or a wrong answer, is counted.
#include <hetlu/hetlu.h>
#include <hetlu/hetlu.hpp>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>
extern "C" void openblas_set_num_threads(int);
static std::atomic<int> bad{0}, wrong{0}, total{0}; static std::atomic<bool> stop{false};
template<class T> void solver_thread(int tid, const char* db, int solver){
  std::mt19937 g(tid*7919+1); std::uniform_real_distribution<double> u(-1,1);
  while(!stop){
    int n = 400 + g()%300; std::vector<T> A(size_t(n)*n), A0, B(n), B0; for(auto&x:A) x=T(u(g)); for(auto&x:B) x=T(u(g)); A0=A; B0=B;
    std::vector<int> piv(n); hetlu_options o; hetlu_options_init(&o); o.solver=(hetlu_solver)solver; o.db_path=db; int info=0;
    hetlu_status st;
    if constexpr (sizeof(T)==4){ st=hetlu_sgetrf(n,n,A.data(),n,piv.data(),&info,&o,nullptr); if(!st) st=hetlu_sgetrs('N',n,1,A.data(),n,piv.data(),B.data(),n);} 
    else { st=hetlu_dgetrf(n,n,A.data(),n,piv.data(),&info,&o,nullptr); if(!st) st=hetlu_dgetrs('N',n,1,A.data(),n,piv.data(),B.data(),n);} 
    total++;
    if(st){ bad++; fprintf(stderr,"FAIL T%d n=%d solver=%d st=%d info=%d: %s\n",tid,n,solver,st,info,hetlu_last_error()); continue; }
    double r=0, an=0, xn=0; for(int j=0;j<n;j++){double c=0; for(int i=0;i<n;i++) c+=std::fabs(A0[i+size_t(j)*n]); an=std::max(an,c); xn=std::max(xn,(double)std::fabs(B[j]));}
    for(int i=0;i<n;i++){ double acc=0; for(int j=0;j<n;j++) acc+=double(A0[i+size_t(j)*n])*B[j]; r=std::max(r,std::fabs(acc-B0[i])); }
    double e = r/(an*xn*n*(sizeof(T)==4?6e-8:1.1e-16)); if(!(e<30)){ wrong++; fprintf(stderr,"WRONG T%d n=%d solver=%d resid=%g\n",tid,n,solver,e);
      // factor check: P A = L U ?
      std::vector<double> PA(size_t(n)*n); for(size_t k=0;k<PA.size();k++) PA[k]=A0[k];
      for(int i=0;i<n;i++){ int p=piv[i]-1; if(p!=i) for(int j=0;j<n;j++) std::swap(PA[i+size_t(j)*n],PA[p+size_t(j)*n]); }
      double fr=0; for(int i=0;i<n;i++) for(int j=0;j<n;j++){ double acc=0; for(int k=0;k<=std::min(i,j);k++){ double l = k==i?1.0:double(A[i+size_t(k)*n]); acc+=l*double(A[k+size_t(j)*n]); } fr=std::max(fr,std::fabs(acc-PA[i+size_t(j)*n])); }
      fprintf(stderr,"   factor max|PA-LU|/(n||A||eps) = %g\n", fr/(an*n*(sizeof(T)==4?6e-8:1.1e-16)));
    } 
  }
}
int main(int argc,char**argv){
  const char* db=argv[1]; int mode=atoi(argv[2]); int secs=argc>3?atoi(argv[3]):20;
  std::vector<std::thread> th;
  for(int t=0;t<2;t++) th.emplace_back(solver_thread<float>, t, db, 1);
  for(int t=2;t<4;t++) th.emplace_back(solver_thread<double>, t, db, t%2);
  std::thread other;
  if(mode==1) other=std::thread([&]{ while(!stop){ try{ hetlu::CalibrationOptions c; c.db_path=db; c.sizes={200}; c.budget_seconds=2; hetlu::calibrate(c);}catch(std::exception&e){fprintf(stderr,"cal: %s\n",e.what());} } });
  if(mode==2) other=std::thread([&]{ while(!stop){ openblas_set_num_threads(1); std::this_thread::sleep_for(std::chrono::milliseconds(3)); openblas_set_num_threads(2); std::this_thread::sleep_for(std::chrono::milliseconds(3)); } });
  if(mode==4) other=std::thread([&]{ std::mt19937 g(5); std::uniform_real_distribution<double> u(-1,1); while(!stop){ int n=300+g()%300; std::vector<double> A(size_t(n)*n),B(n); for(auto&x:A)x=u(g); for(auto&x:B)x=u(g); std::vector<int> p(n); int info; hetlu_options o; hetlu_options_init(&o); o.target=HETLU_TARGET_HYBRID; o.backend=HETLU_BACKEND_HOST; o.db_path=db; o.solver=(hetlu_solver)(g()%2); hetlu_status st=hetlu_dgesv(n,1,A.data(),n,p.data(),B.data(),n,&info,&o,nullptr); if(st) fprintf(stderr,"hybrid st=%d %s\n",st,hetlu_last_error()); } });
  if(mode==5) other=std::thread([&]{ std::mt19937 g(5); std::uniform_real_distribution<double> u(-1,1); while(!stop){ int n=300+g()%300; std::vector<double> A(size_t(n)*n),B(n),X(n); for(auto&x:A)x=u(g); for(auto&x:B)x=u(g); std::vector<int> p(n); int info,iter; hetlu_options o; hetlu_options_init(&o); o.target=HETLU_TARGET_HYBRID; o.backend=HETLU_BACKEND_HOST; o.db_path=db; hetlu_status st=hetlu_dsgesv(n,1,A.data(),n,p.data(),B.data(),n,X.data(),n,&iter,&info,&o,nullptr); if(st) fprintf(stderr,"hybrid mixed st=%d %s\n",st,hetlu_last_error()); } });
  if(mode==3) other=std::thread([&]{ while(!stop){ hetlu::clear_plan_cache(); std::this_thread::sleep_for(std::chrono::milliseconds(2)); } });
  std::this_thread::sleep_for(std::chrono::seconds(secs)); stop=true; for(auto&x:th) x.join(); if(other.joinable()) other.join();
  printf("mode %d total %d failed %d wrong %d\n", mode, total.load(), bad.load(), wrong.load()); return (bad||wrong)?1:0;
}
