! The Fortran twin of app_halo3d.c (`use mpi`, or `use mpi_f08` when built with -DCANOPY_F08),
! unaware of Canopy: a 3D halo exchange on a
! PX x PY x PZ process grid (not periodic) over a communicator made with reorder = .true.
! Each process takes its rank in the new communicator, derives its grid position from it,
! checks that the topology MPI reports for it is its stencil neighbourhood, exchanges faces
! with its neighbours and updates its cells. Then it calls each collective Canopy intercepts
! once (MPI_BARRIER, MPI_BCAST, MPI_ALLGATHER, MPI_GATHER, MPI_SCATTER, MPI_ALLTOALL,
! MPI_REDUCE, MPI_ALLREDUCE with MPI_IN_PLACE) and checks each result. Rank 0 prints
! checksums, which do not depend on which process plays which grid position; stderr gets how
! many ranks were renumbered and the checks.
!
!   app_halo3d PX PY PZ [--cart | --graph1] [--persistent | --sendrecv | --neighbor] [--iterations N]
!     (default)     MPI_DIST_GRAPH_CREATE_ADJACENT, face sizes as edge weights
!     --cart        MPI_CART_CREATE (dims PZ x PY x PX, so that x varies fastest as here), after
!                   MPI_CART_MAP: stderr says whether each rank got from it the rank it gets
!     --graph1      MPI_GRAPH_CREATE, the MPI-1 graph of the whole stencil, after MPI_GRAPH_MAP (likewise)
!     --persistent  MPI_SEND_INIT, MPI_RECV_INIT and MPI_STARTALL instead of MPI_ISEND / MPI_IRECV
!     --sendrecv    MPI_SENDRECV, one direction after the other (MPI_PROC_NULL where none)
!     --neighbor    MPI_NEIGHBOR_ALLTOALL (MPI_INEIGHBOR_ALLTOALLV on odd iterations), and at the end
!                   each rank's rank to its neighbours by MPI_INEIGHBOR_ALLGATHER (checked)
! Exit status 1 when a check fails.
#ifdef CANOPY_F08
#define MPI_MODULE mpi_f08
#define COMM_HANDLE type(MPI_Comm)
#define REQUEST_HANDLE type(MPI_Request)
#else
#define MPI_MODULE mpi
#define COMM_HANDLE integer
#define REQUEST_HANDLE integer
#endif
module halo_grid
  implicit none
  integer, parameter :: n = 6                 ! cells per process along each dimension
  integer(8), parameter :: modulus = 1000003
  integer :: dims(3)
contains
  function coords_of(rank) result(c)
    integer, intent(in) :: rank
    integer :: c(3)
    c = [mod(rank, dims(1)), mod(rank / dims(1), dims(2)), rank / (dims(1) * dims(2))]
  end function

  integer function rank_of(c)
    integer, intent(in) :: c(3)
    rank_of = c(1) + dims(1) * (c(2) + dims(2) * c(3))
  end function

  ! The existing neighbours of rank in the order -x, +x, -y, +y, -z, +z; dir = 2d or 2d+1 (d from 0).
  integer function stencil(rank, nb, dir)
    integer, intent(in) :: rank
    integer, intent(out) :: nb(6), dir(6)
    integer :: c(3), m(3), d, side
    c = coords_of(rank)
    stencil = 0
    do d = 1, 3
      do side = 0, 1
        m = c
        m(d) = m(d) + 2 * side - 1
        if (m(d) < 0 .or. m(d) >= dims(d)) cycle
        stencil = stencil + 1
        nb(stencil) = rank_of(m)
        dir(stencil) = 2 * (d - 1) + side
      end do
    end do
  end function

  ! The face of the block towards direction dir (interior cells next to it), or into the ghost layer.
  subroutine face(u, dir, buf, to_ghost)
    integer(8), intent(inout) :: u(0:n + 1, 0:n + 1, 0:n + 1), buf(n * n)
    integer, intent(in) :: dir
    logical, intent(in) :: to_ghost
    integer :: d, layer, a, b, at, idx(3)
    d = dir / 2 + 1
    if (mod(dir, 2) == 1) then
      layer = merge(n + 1, n, to_ghost)
    else
      layer = merge(0, 1, to_ghost)
    end if
    at = 0
    do a = 1, n
      do b = 1, n
        at = at + 1
        if (d == 1) idx = [layer, a, b]
        if (d == 2) idx = [a, layer, b]
        if (d == 3) idx = [a, b, layer]
        if (to_ghost) then
          u(idx(1), idx(2), idx(3)) = buf(at)
        else
          buf(at) = u(idx(1), idx(2), idx(3))
        end if
      end do
    end do
  end subroutine
end module

program halo3d
  use MPI_MODULE
  use halo_grid
  implicit none
  COMM_HANDLE :: graph
  REQUEST_HANDLE :: requests(12), request
  integer :: ierr, world_rank, world_size, rank, size, iterations, i, d, it, count, lower, upper, mapped
  integer :: nb(6), dir(6), found(6), weights(6), cart_dims(3), moved, good, ok
  integer :: in, out, src(6), dst(6), sw(6), dw(6), c(3), value, expected
  integer :: towards(0:5), peers(0:5), peer_dir(0:5), blocks, j, got(0:5)
  logical :: cart, graph1, persistent, exchange_by_sendrecv, neighbor, weighted, periods(3)
  integer :: r, total_edges
  integer, allocatable :: graph_index(:), graph_edges(:)
  character(len=32) :: arg
  integer(8), allocatable :: u(:, :, :), next(:, :, :), positions(:), sendbuf(:, :), recvbuf(:, :)
  integer(8) :: local, total, gathered_total
  integer, allocatable :: send_ints(:), recv_ints(:), grid_positions(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, world_rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, world_size, ierr)
  cart = .false.
  graph1 = .false.
  persistent = .false.
  exchange_by_sendrecv = .false.
  neighbor = .false.
  iterations = 5
  if (command_argument_count() < 3) then
    if (world_rank == 0) write (0, '(a)') &
      'usage: app_halo3d PX PY PZ [--cart | --graph1] [--persistent | --sendrecv | --neighbor] [--iterations N]'
    call MPI_FINALIZE(ierr)
    stop 2
  end if
  do d = 1, 3
    call get_command_argument(d, arg)
    read (arg, *) dims(d)
  end do
  i = 4
  do while (i <= command_argument_count())
    call get_command_argument(i, arg)
    if (arg == '--cart') cart = .true.
    if (arg == '--graph1') graph1 = .true.
    if (arg == '--persistent') persistent = .true.
    if (arg == '--sendrecv') exchange_by_sendrecv = .true.
    if (arg == '--neighbor') neighbor = .true.
    if (arg == '--iterations') then
      i = i + 1
      call get_command_argument(i, arg)
      read (arg, *) iterations
    end if
    i = i + 1
  end do
  if (product(dims) /= world_size) then
    if (world_rank == 0) write (0, '(i0,"x",i0,"x",i0," is not ",i0," ranks")') dims, world_size
    call MPI_FINALIZE(ierr)
    stop 2
  end if

  count = stencil(world_rank, nb, dir)
  weights = n * n * 8
  if (cart) then
    cart_dims = [dims(3), dims(2), dims(1)]
    periods = .false.
    call MPI_CART_MAP(MPI_COMM_WORLD, 3, cart_dims, periods, mapped, ierr)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 3, cart_dims, periods, .true., graph, ierr)
  else if (graph1) then  ! every rank states the whole graph
    allocate (graph_index(world_size), graph_edges(6 * world_size))
    total_edges = 0
    do r = 0, world_size - 1
      i = stencil(r, found, src)
      graph_edges(total_edges + 1:total_edges + i) = found(1:i)
      total_edges = total_edges + i
      graph_index(r + 1) = total_edges
    end do
    call MPI_GRAPH_MAP(MPI_COMM_WORLD, world_size, graph_index, graph_edges, mapped, ierr)
    call MPI_GRAPH_CREATE(MPI_COMM_WORLD, world_size, graph_index, graph_edges, .true., graph, ierr)
  else
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, count, nb, weights, count, nb, weights, MPI_INFO_NULL, &
                                        .true., graph, ierr)
  end if
  call MPI_COMM_RANK(graph, rank, ierr)
  call MPI_COMM_SIZE(graph, size, ierr)
  moved = merge(1, 0, rank /= world_rank)

  ! The new rank's stencil: its neighbour towards each direction, and in the order of the
  ! neighbourhood collectives' blocks (the graph's, or along each Cartesian dimension the one at
  ! -1, then at +1).
  count = stencil(rank, nb, dir)
  towards = MPI_PROC_NULL
  towards(dir(1:count)) = nb(1:count)
  if (cart) then
    blocks = 6
    peer_dir = [(2 * (2 - j / 2) + mod(j, 2), j = 0, 5)]
    peers = towards(peer_dir)
  else
    blocks = count
    peer_dir(0:count - 1) = dir(1:count)
    peers(0:count - 1) = nb(1:count)
  end if
  ! The topology MPI reports for the new rank must be its stencil.
  good = 1
  if (cart) then
    found = -1
    in = 0
    do d = 0, 2                        ! Cartesian dimension 2 - d is the grid's d
      call MPI_CART_SHIFT(graph, 2 - d, 1, lower, upper, ierr)
      if (lower /= MPI_PROC_NULL) then
        in = in + 1
        found(in) = lower
      end if
      if (upper /= MPI_PROC_NULL) then
        in = in + 1
        found(in) = upper
      end if
    end do
    if (in /= count .or. any(found(1:count) /= nb(1:count))) good = 0
  else if (graph1) then
    call MPI_GRAPH_NEIGHBORS_COUNT(graph, rank, in, ierr)
    if (in == count) call MPI_GRAPH_NEIGHBORS(graph, rank, 6, found, ierr)
    if (in /= count .or. any(found(1:count) /= nb(1:count))) good = 0
  else
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(graph, in, out, weighted, ierr)
    if (in /= count .or. out /= count .or. .not. weighted) then
      good = 0
    else
      call MPI_DIST_GRAPH_NEIGHBORS(graph, in, src, sw, out, dst, dw, ierr)
      if (any(src(1:count) /= nb(1:count)) .or. any(dst(1:count) /= nb(1:count)) .or. &
          any(sw(1:count) /= n * n * 8) .or. any(dw(1:count) /= n * n * 8)) good = 0
    end if
  end if
  if (good == 0) write (0, '("rank ",i0,": the topology is not the stencil")') rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, moved, 1, MPI_INTEGER, MPI_SUM, graph, ierr)
  call MPI_ALLREDUCE(good, ok, 1, MPI_INTEGER, MPI_MIN, graph, ierr)
  if (rank == 0) write (0, '("renumbered ranks: ",i0,/,"graph check: ",a)') moved, trim(merge('ok    ', 'FAILED', ok == 1))
  if (cart .or. graph1) then  ! whether MPI_CART_MAP / MPI_GRAPH_MAP gave each rank the rank the constructor gives it
    mapped = merge(1, 0, mapped == rank)
    call MPI_ALLREDUCE(MPI_IN_PLACE, mapped, 1, MPI_INTEGER, MPI_MIN, graph, ierr)
    if (rank == 0) write (0, '("map check: ",a)') trim(merge('ok     ', 'differs', mapped == 1))
  end if

  allocate (u(0:n + 1, 0:n + 1, 0:n + 1), next(0:n + 1, 0:n + 1, 0:n + 1), sendbuf(n * n, 0:5), recvbuf(n * n, 0:5))
  u = 0
  next = 0
  c = coords_of(rank)
  block
    integer :: x, y, z
    do x = 1, n
      do y = 1, n
        do z = 1, n
          u(x, y, z) = mod((c(1) * n + x) * 31 + (c(2) * n + y) * 17 + (c(3) * n + z) * 7, 1000)
        end do
      end do
    end do
  end block
  if (rank == 0) write (*, '("grid ",i0,"x",i0,"x",i0,", ",i0,"^3 cells per rank, ",i0," iterations")') &
    dims, n, iterations
  if (persistent) then                 ! made once, started every iteration
    do i = 1, count
      call MPI_RECV_INIT(recvbuf(:, dir(i)), n * n, MPI_INTEGER8, nb(i), ieor(dir(i), 1), graph, requests(i), ierr)
      call MPI_SEND_INIT(sendbuf(:, dir(i)), n * n, MPI_INTEGER8, nb(i), dir(i), graph, requests(count + i), ierr)
    end do
  end if
  do it = 0, iterations - 1
    if (neighbor) then
      call exchange_by_collective(mod(it, 2) == 1)
    else
      call exchange_by_messages()
    end if
    local = step(u, next)
    u = next
    call MPI_REDUCE(local, total, 1, MPI_INTEGER8, MPI_SUM, 0, graph, ierr)
    if (rank == 0) write (*, '("iteration ",i0," checksum ",i0)') it, total
  end do
  if (persistent) then
    do i = 1, 2 * count
      call MPI_REQUEST_FREE(requests(i), ierr)
    end do
  end if
  ! One value that depends on the position of every cell: where each block sits matters.
  local = 0
  do i = 1, n
    local = mod(local * 131 + u(i, i, i), modulus)
  end do
  local = local * (rank_of(c) + 1)
  call MPI_REDUCE(local, total, 1, MPI_INTEGER8, MPI_SUM, 0, graph, ierr)
  if (rank == 0) write (*, '("position checksum ",i0)') total

  ! Each intercepted collective once, its result checked on every rank.
  good = 1
  if (neighbor) then
    call MPI_INEIGHBOR_ALLGATHER(rank, 1, MPI_INTEGER, got, 1, MPI_INTEGER, graph, request, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    do j = 0, blocks - 1
      if (peers(j) /= MPI_PROC_NULL .and. got(j) /= peers(j)) good = 0
    end do
  end if
  call MPI_BARRIER(graph, ierr)
  value = merge(1000 + iterations, 0, rank == 0)
  call MPI_BCAST(value, 1, MPI_INTEGER, 0, graph, ierr)
  if (value /= 1000 + iterations) good = 0
  allocate (positions(0:size - 1), grid_positions(0:size - 1), send_ints(0:size - 1), recv_ints(0:size - 1))
  call MPI_ALLGATHER(local, 1, MPI_INTEGER8, positions, 1, MPI_INTEGER8, graph, ierr)
  gathered_total = sum(positions)
  if (positions(rank) /= local .or. (rank == 0 .and. gathered_total /= total)) good = 0
  call MPI_GATHER(rank_of(c), 1, MPI_INTEGER, grid_positions, 1, MPI_INTEGER, 0, graph, ierr)
  if (rank == 0) then                  ! rank r plays grid position r
    do i = 0, size - 1
      if (grid_positions(i) /= i) good = 0
    end do
  end if
  send_ints = [(7 * i + 1, i = 0, size - 1)]
  call MPI_SCATTER(send_ints, 1, MPI_INTEGER, value, 1, MPI_INTEGER, 0, graph, ierr)
  if (value /= 7 * rank + 1) good = 0
  send_ints = [(1000 * rank + i, i = 0, size - 1)]
  call MPI_ALLTOALL(send_ints, 1, MPI_INTEGER, recv_ints, 1, MPI_INTEGER, graph, ierr)
  do i = 0, size - 1
    expected = 1000 * i + rank
    if (recv_ints(i) /= expected) good = 0
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, good, 1, MPI_INTEGER, MPI_MIN, graph, ierr)
  if (rank == 0) write (0, '("collectives check: ",a)') trim(merge('ok    ', 'FAILED', good == 1))
  if (rank == 0) write (*, '("allgather checksum ",i0)') gathered_total
  call MPI_COMM_FREE(graph, ierr)
  call MPI_FINALIZE(ierr)
  if (ok /= 1 .or. good /= 1) stop 1

contains
  ! One exchange by point-to-point messages: MPI_ISEND / MPI_IRECV, persistent requests, or MPI_SENDRECV.
  subroutine exchange_by_messages()
    integer :: i, d
    do i = 1, count
      call face(u, dir(i), sendbuf(:, dir(i)), .false.)
    end do
    if (persistent) then
      call MPI_STARTALL(2 * count, requests, ierr)
    else if (exchange_by_sendrecv) then  ! each face to the neighbour in direction d, from the one opposite
      do d = 0, 5
        call MPI_SENDRECV(sendbuf(:, d), n * n, MPI_INTEGER8, towards(d), d, recvbuf(:, ieor(d, 1)), n * n, &
                          MPI_INTEGER8, towards(ieor(d, 1)), d, graph, MPI_STATUS_IGNORE, ierr)
      end do
    else
      do i = 1, count
        call MPI_IRECV(recvbuf(:, dir(i)), n * n, MPI_INTEGER8, nb(i), ieor(dir(i), 1), graph, requests(i), ierr)
        call MPI_ISEND(sendbuf(:, dir(i)), n * n, MPI_INTEGER8, nb(i), dir(i), graph, requests(count + i), ierr)
      end do
    end if
    if (.not. exchange_by_sendrecv) call MPI_WAITALL(2 * count, requests, MPI_STATUSES_IGNORE, ierr)
    do i = 1, count
      call face(u, dir(i), recvbuf(:, dir(i)), .true.)
    end do
  end subroutine

  ! One exchange by a neighbourhood collective, the blocks in MPI's order (peers).
  subroutine exchange_by_collective(nonblocking)
    logical, intent(in) :: nonblocking
    integer :: k, counts(0:5), displs(0:5)
    REQUEST_HANDLE :: req
    do k = 0, blocks - 1
      if (peers(k) /= MPI_PROC_NULL) call face(u, peer_dir(k), sendbuf(:, k), .false.)
    end do
    if (nonblocking) then
      counts = n * n
      displs = [(k * n * n, k = 0, 5)]
      call MPI_INEIGHBOR_ALLTOALLV(sendbuf, counts, displs, MPI_INTEGER8, recvbuf, counts, displs, MPI_INTEGER8, &
                                   graph, req, ierr)
      call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_NEIGHBOR_ALLTOALL(sendbuf, n * n, MPI_INTEGER8, recvbuf, n * n, MPI_INTEGER8, graph, ierr)
    end if
    do k = 0, blocks - 1
      if (peers(k) /= MPI_PROC_NULL) call face(u, peer_dir(k), recvbuf(:, k), .true.)
    end do
  end subroutine

  integer(8) function step(u, next)
    integer(8), intent(in) :: u(0:n + 1, 0:n + 1, 0:n + 1)
    integer(8), intent(inout) :: next(0:n + 1, 0:n + 1, 0:n + 1)
    integer :: x, y, z
    step = 0
    do x = 1, n
      do y = 1, n
        do z = 1, n
          next(x, y, z) = mod(2 * u(x, y, z) + u(x - 1, y, z) + u(x + 1, y, z) + u(x, y - 1, z) + u(x, y + 1, z) + &
                              u(x, y, z - 1) + u(x, y, z + 1) + 1, modulus)
          step = step + next(x, y, z)
        end do
      end do
    end do
  end function
end program
