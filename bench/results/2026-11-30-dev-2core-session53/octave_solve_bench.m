rand("seed",3);
for n = [50 200 1000 3000]
  A = rand(n) + n*eye(n)*0; b = rand(n,1);
  reps = max(3, round(2e8/n^3));
  x = A\b; best = Inf;
  for r = 1:5
    tic; for k = 1:reps; x = A\b; end; best = min(best, toc/reps);
  end
  printf("n=%d %.6g s resid %.2g\n", n, best, norm(A*x-b,1)/(norm(A,1)*norm(x,1)*eps));
end
