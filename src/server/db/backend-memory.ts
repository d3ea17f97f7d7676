// A statement run once on every new PostgreSQL connection of the app (the pool's and the hot statements' lines).
//
// PostgreSQL's backends allocate with glibc's malloc. Each btree index scan takes about 27 KB in one piece
// (BTScanOpaque), freed when the statement ends. A statement with a few index scans (the session joined with its user
// and the customer's subscriptions, say) can need more than the free room below the top of the backend's heap: glibc
// then grows the heap (brk) for the statement and, when it is freed, gives the top back to the kernel (the trim
// threshold is 128 KB). Two brk calls per statement, and the one that shrinks the heap flushes the TLB of every CPU:
// on this project's 2-core virtual machines that cost about 70 µs per statement, and the backend answering the
// customer's list went from 44 µs to 360 µs of CPU per request, on a heap whose layout happened to fall that way
// (bench/api.bench.ts: after the session call's run, the subscriptions call ran at a third of its speed).
//
// glibc raises its trim threshold to twice the size of the largest block it had to map and then freed (mallopt(3),
// "dynamic mmap threshold"). This statement allocates one block of 4 MB (repeat builds the text) and frees it at once:
// from then on the backend keeps up to 8 MB of freed heap instead of returning it on every statement. On a server
// whose malloc is not glibc's it is only a harmless 4 MB string.
export const raiseTrimThresholdSql = "select length(repeat('x', 4194304))"
