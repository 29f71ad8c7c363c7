/* ring-election: Chang–Roberts leader election on a unidirectional ring of N nodes.
 *
 * The SPIN counterpart of bench/programs/ring-election.kb, for the side-by-side
 * table of docs/bench-distributed.md. Set N with spin -DN=… (default 3).
 *
 * How it maps: kbmc's process node[N] (one thread) is proctype node(me); its
 * memory (leader, leaderId) is the proctype's own variables, since only its one
 * thread touches it. Node i has id N - 1 - i and sends only to node i + 1 (mod N)
 * on ring[i + 1], a channel of capacity 2 carrying (kind, id), as in kbmc. The
 * same two assertions; verdict safe (no assertion fails, no invalid end state).
 *
 * What differs: kind and id are bytes, leaderId a short (kbmc: 32-bit ints);
 * init starts the nodes inside one atomic step; xr/xs tell SPIN's partial-order
 * reduction that node i alone reads ring[i] and alone writes ring[i + 1].
 */
#ifndef N
#define N 3
#endif
#define ELECTION 0
#define ELECTED 1

chan ring[N] = [2] of { byte, byte };  /* (kind, id) to node i */

proctype node(byte me) {
	bool leader;                   /* node memory */
	short leaderId = -1;
	byte my = N - 1 - me;
	chan in = ring[me];            /* xr/xs need plain channel names */
	chan out = ring[(me + 1) % N];
	bool done = false;
	byte kind;
	byte id;
	xr in;
	xs out;
	out!ELECTION, my;
	do
	:: done -> break
	:: else ->
		in?kind, id;
		if
		:: kind == ELECTION ->
			if
			:: id > my -> out!ELECTION, id
			:: id == my ->
				leader = true;
				leaderId = my;
				out!ELECTED, my
			:: else
			fi
		:: else ->
			if
			:: id != my ->
				leaderId = id;
				out!ELECTED, id
			:: else
			fi;
			done = true
		fi
	od;
	assert(leaderId == N - 1);             /* a node learnt the wrong leader */
	assert(leader == (me == 0))            /* a node that does not hold the largest id became leader */
}

init {
	byte i;
	atomic {
		for (i : 0 .. N - 1) {
			run node(i)
		}
	}
}
