/* token-ring: mutual exclusion among N nodes by a token that travels a ring.
 *
 * The SPIN counterpart of bench/programs/token-ring.kb, for the side-by-side
 * table of docs/bench-distributed.md. Set N with spin -DN=… (default 3) and
 * ROUNDS with -DROUNDS=… (default 2, as in kbmc).
 *
 * How it maps: kbmc's process boot is proctype boot; each node[N] process has two
 * threads that share the node's memory (want, inCS, entries), so here they are two
 * proctypes, worker(me) and ringthread(me), and the node's memory is the global
 * arrays want[me], inCS[me], entries[me] (Promela has no memory shared by some
 * processes only). tok[N] keeps capacity 1 and its one int field. kbmc's
 * await(c) is the Promela guard c; atomic { await(c); … } is atomic { c -> … }.
 * Same assertions; verdict safe (no assertion fails, no invalid end state).
 *
 * What differs: the counter and entries are bytes (kbmc: 32-bit ints); init
 * starts the processes inside one atomic step; xr tells SPIN's partial-order
 * reduction that a node's ring thread alone reads tok[me] (tok[0] has two
 * writers, boot and node N - 1, so no xs). Because the node's memory is global
 * here, SPIN's reduction treats every access to it as dependent on every other
 * process, where kbmc knows only the node's own threads share it.
 */
#ifndef N
#define N 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

chan tok[N] = [1] of { byte };
bool want[N];                  /* node memory, shared by its two threads */
bool inCS[N];
byte entries[N];

proctype boot() {
	tok[0]!0
}

proctype worker(byte me) {
	byte r;
	for (r : 0 .. ROUNDS - 1) {
		want[me] = true;
		inCS[me];                              /* await(inCS) */
		atomic {                               /* the critical section, and leaving it */
			entries[me]++;
			want[me] = false;
			inCS[me] = false
		}
	}
}

proctype ringthread(byte me) {
	byte r;
	byte t;
	chan in = tok[me];
	xr in;
	for (r : 0 .. ROUNDS - 1) {
		in?t;
		assert(t == r * N + me);               /* the token skipped a node */
		atomic {                               /* let the worker in when it wants */
			want[me] -> inCS[me] = true
		}
		atomic {                               /* and wait until it has left */
			!inCS[me] -> assert(entries[me] == r + 1)
		}
		if
		:: me < N - 1 || r < ROUNDS - 1 -> tok[(me + 1) % N]!t + 1
		:: else
		fi
	}
}

init {
	byte i;
	atomic {
		run boot();
		for (i : 0 .. N - 1) {
			run worker(i);
			run ringthread(i)
		}
	}
}
