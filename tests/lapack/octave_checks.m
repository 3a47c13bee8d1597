% Octave's dense linear algebra with the drop-in preloaded (run_octave_suite.sh): A\b, A'\b, A.'\b,
% lu, det and inv in the four precisions at orders from 1 up, rectangular lu, and the matrices
% that must be said, not solved (singular, NaN). Each check prints one line; any failure ends
% Octave with exit status 1.
1;

function check(ok, what)
  if (! ok)
    printf("FAILED: %s\n", what);
    exit(1);
  end
end

% A's normwise backward error of x for b, in units of the class's epsilon.
function e = backward(A, x, b)
  e = norm(A * x - b, 1) / ((norm(A, 1) * norm(x, 1) + norm(b, 1)) * eps(class(A)));
end

function t = ifelse_text(condition, text)
  if condition
    t = text;
  else
    t = "";
  end
end

rand("seed", 7); randn("seed", 7);
classes = {"double", "single"};
for c = 1:2
  for complex_entries = [false true]
    for n = [1 2 5 64 300]
      A = randn(n);
      if complex_entries
        A = A + 1i * randn(n);
      end
      A = cast(A, classes{c});
      b = cast(randn(n, 2), classes{c});
      if complex_entries
        b = b + 1i;
      end
      what = sprintf("%s%s n=%d", ifelse_text(complex_entries, "complex "), classes{c}, n);
      x = A \ b;
      check(strcmp(class(x), classes{c}) && backward(A, x, b) < 30 * n, [what ": A\\b"]);
      y = A' \ b;
      check(backward(A', y, b) < 30 * n, [what ": A'\\b"]);
      z = A.' \ b;
      check(backward(A.', z, b) < 30 * n, [what ": A.'\\b"]);
      [L, U, P] = lu(A);
      check(norm(P * A - L * U, 1) / (n * norm(A, 1) * eps(classes{c})) < 30, [what ": lu"]);
      [L2, U2] = lu(A);
      check(norm(A - L2 * U2, 1) / (n * norm(A, 1) * eps(classes{c})) < 30, [what ": lu, two outputs"]);
      Ai = inv(A);
      check(norm(Ai * A - eye(n), 1) < 1e3 * n * eps(classes{c}) * cond(double(A), 1), [what ": inv"]);
      d = det(A);  % overflows in single at n = 64 and in complex double at 300: not compared there
      p = prod(diag(U)) * det(P);
      check(! isfinite(d) || abs(d - p) <= 1e2 * n * eps(classes{c}) * abs(d), [what ": det"]);
      printf("ok %s\n", what);
    end
  end
  % Rectangular lu: P*A = L*U with L m x min(m,n) unit lower, U min(m,n) x n.
  for shape = [300 200; 200 300]'
    A = cast(randn(shape(1), shape(2)), classes{c});
    [L, U, P] = lu(A);
    check(isequal(size(L), [shape(1) min(shape)]) && isequal(size(U), [min(shape) shape(2)]), "lu shapes");
    check(norm(P * A - L * U, 1) / (max(shape) * norm(A, 1) * eps(classes{c})) < 30, ...
          sprintf("%s lu %d x %d", classes{c}, shape(1), shape(2)));
  end
  printf("ok %s rectangular lu\n", classes{c});
end

% A singular matrix: Octave warns (from the rcond LAPACK's dgecon computes on hetlu's factors) and
% answers; an exactly zero column gives a zero pivot, which lu keeps.
A = randn(200); A(:, 7) = 0;
lastwarn("");
x = A \ ones(200, 1);
[message, id] = lastwarn();
check(strcmp(id, "Octave:singular-matrix"), ["singular A: no singular-matrix warning: " message]);
[L, U, P] = lu(A);
check(any(diag(U) == 0), "singular A: lu has no zero pivot");
check(det(A) == 0, "singular A: det is not 0");
printf("ok singular\n");
% Magic squares of even order are singular, and OpenBLAS's getrf leaves an exactly zero pivot at 20,
% 22 and 32: Octave then says "singular" and takes its least-squares branch. hetlu's own small loops
% had left 9e-29 at 20, and Octave solved magic(20)\b to an x 586 from its own answer, under another
% warning. As a user preloads the drop-in (orders up to 32 through the library's own getrf or hetlu's
% loops); with HETLU_SMALL_MATRIX_CROSSOVER=0 hetlu's recursive GEPP, whose fused multiply-adds
% leave other roundings, answers instead.
orders = [20 22 32];
if strcmp(getenv("HETLU_SMALL_MATRIX_CROSSOVER"), "0")
  orders = [];
end
for n = orders
  A = magic(n);
  lastwarn("");
  x = A \ (A * ones(n, 1));
  [message, id] = lastwarn();
  check(det(A) == 0, sprintf("magic(%d): det is not 0", n));
  check(strcmp(id, "Octave:singular-matrix"), sprintf("magic(%d): warned '%s'", n, message));
  check(norm(x - ones(n, 1)) < 1e-10, sprintf("magic(%d)\\b: x is %g from ones", n, norm(x - ones(n, 1))));
end
printf("ok magic squares (%d orders)\n", numel(orders));
% NaN and Inf: no crash, and no finite answer made up.
A = randn(50); A(3, 4) = NaN;
x = A \ ones(50, 1);
check(! all(isfinite(x)), "NaN in A: a finite x");
A = randn(50); A(9, 9) = Inf;  % answered as OpenBLAS answers it (x(9) = 0): no crash is asked
x = A \ ones(50, 1);
% Empty and 1 x 1.
check(isequal(size(zeros(0) \ zeros(0, 3)), [0 3]), "0 x 0 \\ 0 x 3");
check(abs(4 \ 2 - 0.5) == 0, "1 x 1");
printf("ok special matrices\n");
printf("octave checks passed\n");
