! Calls LAPACK's DGESV and DGETRF from Fortran, linked against libhetlu_lapack: the answers must
! be LAPACK's (solution, INFO for a singular matrix, INFO < 0 through XERBLA for a bad argument).
program test_dgesv
  implicit none
  integer, parameter :: n = 4
  double precision :: a(n, n), b(n, 2), x_expected(n)
  double precision :: s(3, 3), bs(3, 1), t(2, 2)
  integer :: ipiv(n), info, failures, i
  external dgesv, dgetrf

  failures = 0
  a = reshape([4d0, 1d0, 0d0, 2d0, 1d0, 5d0, 1d0, 0d0, 0d0, 1d0, 6d0, 1d0, 3d0, 0d0, 1d0, 7d0], [n, n])
  x_expected = [1d0, -2d0, 3d0, 0.5d0]
  b(:, 1) = matmul(a, x_expected)
  b(:, 2) = 2 * b(:, 1)
  call dgesv(n, 2, a, n, ipiv, b, n, info)
  call expect(info == 0, 'dgesv info = 0')
  call expect(maxval(abs(b(:, 1) - x_expected)) < 1d-13, 'dgesv solution, first right-hand side')
  call expect(maxval(abs(b(:, 2) - 2 * x_expected)) < 1d-13, 'dgesv solution, second right-hand side')
  do i = 1, n
    call expect(ipiv(i) >= i .and. ipiv(i) <= n, 'pivot in range')
  end do

  ! Column 2 is twice column 1: the second pivot is exactly zero.
  s = reshape([1d0, 2d0, 3d0, 2d0, 4d0, 6d0, 0d0, 1d0, 5d0], [3, 3])
  bs = 1
  call dgesv(3, 1, s, 3, ipiv, bs, 3, info)
  call expect(info == 2, 'singular matrix: info = 2')

  ! NRHS = 0: A is still factored, as LAPACK's DGESV does (OpenBLAS's returned at once).
  t = reshape([1d0, 2d0, 3d0, 4d0], [2, 2])
  ipiv = -7
  call dgesv(2, 0, t, 2, ipiv, bs, 2, info)
  call expect(info == 0 .and. ipiv(1) == 2 .and. t(1, 1) == 2d0 .and. t(2, 1) == 0.5d0, 'nrhs = 0 factors A')

  ! LDA < N: XERBLA reports argument 4 and INFO = -4.
  call dgetrf(3, 3, s, 2, ipiv, info)
  call expect(info == -4, 'lda < m: info = -4')

  if (failures == 0) then
    print '(a)', '8 passed, 0 failed'
  else
    print '(i0, a)', failures, ' failed'
    stop 1
  end if

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAILED ', what
      failures = failures + 1
    end if
  end subroutine expect

end program test_dgesv
