/* database-partitioning: Stoller's first example; nodes 1 .. N-1 each propose a
 * new partition once, every node accepts the largest (version, proposer), and
 * node 0 checks that all agree at the end.
 *
 * The SPIN counterpart of bench/programs/database-partitioning.kb, for the
 * side-by-side table of docs/bench-distributed.md. Set N with spin -DN=…
 * (default 3).
 *
 * How it maps: each node[N] process of kbmc has three threads sharing the node's
 * memory (partn, ver, who, chg); here they are the proctypes propose(me),
 * listen(me) and audit(me), and the node's memory is the global arrays partn[me],
 * ver[me], who[me], chg[me] (Promela has no memory shared by some processes
 * only). The channels keep their capacities and fields: proposal[N] of capacity
 * N carrying (partition, version, proposer), ack[N] of capacity N, report of
 * capacity N. The same acceptance rule in the same atomic step; the same
 * assertion; verdict safe (no assertion fails, no invalid end state).
 *
 * What differs: kbmc's audit thread starts with join(propose); join(listen).
 * Promela has no join, so propose and listen set proposeDone[me] and
 * listenDone[me] as their last step, and audit waits for both: one more step per
 * thread than kbmc's termination. Values are bytes (kbmc: 32-bit ints); init
 * starts the processes inside one atomic step; xr tells SPIN's partial-order
 * reduction that listen(me) alone reads proposal[me], propose(me) alone ack[me]
 * and audit(0) alone report. Because the node's memory is global here, SPIN
 * treats every access to it as dependent on every other process, where kbmc
 * knows only the node's own threads share it.
 */
#ifndef N
#define N 3
#endif

chan proposal[N] = [N] of { byte, byte, byte };   /* (partition, version, proposer) to node i */
chan ack[N] = [N] of { byte };                    /* acknowledgement to proposer i */
chan report = [N] of { byte };                    /* final partition of a node, to node 0 */

byte partn[N];                 /* node memory, shared by its three threads */
byte ver[N];
byte who[N];                   /* proposer of the current version (N: nobody; set by init) */
bool chg[N];                   /* this node's proposal is under way */
bool proposeDone[N];           /* kbmc's join: the thread has ended */
bool listenDone[N];

proctype propose(byte me) {
	byte v = 0;
	byte j;
	byte k;
	byte from;
	chan acks = ack[me];
	xr acks;
	if
	:: me > 0 ->
		atomic {
			ver[me]++;
			partn[me] = me;
			who[me] = me;
			chg[me] = true;
			v = ver[me]
		}
		for (j : 0 .. N - 1) {
			if
			:: j != me -> proposal[j]!me, v, me
			:: else
			fi
		}
		for (k : 1 .. N - 1) {
			acks?from
		}
		chg[me] = false
	:: else
	fi;
	proposeDone[me] = true
}

proctype listen(byte me) {
	/* Every node proposes but node 0; this one hears the others. */
	byte expect = (me > 0 -> N - 2 : N - 1);
	byte k;
	byte p;
	byte v;
	byte from;
	chan in = proposal[me];
	xr in;
	for (k : 1 .. expect) {
		in?p, v, from;
		atomic {
			if
			:: v > ver[me] || v == ver[me] && from < who[me] ->
				partn[me] = p;
				ver[me] = v;
				who[me] = from
			:: else
			fi
		}
		ack[from]!me
	}
	listenDone[me] = true
}

proctype audit(byte me) {
	byte mine;
	byte k;
	byte p;
	proposeDone[me] && listenDone[me];     /* join(propose); join(listen) */
	mine = partn[me];
	if
	:: me > 0 -> report!mine
	:: else ->
		for (k : 1 .. N - 1) {
			report?p;
			assert(p == mine)              /* two nodes ended with different partitions */
		}
	fi
}

init {
	byte i;
	atomic {
		for (i : 0 .. N - 1) {
			who[i] = N
		}
		for (i : 0 .. N - 1) {
			run propose(i);
			run listen(i);
			run audit(i)
		}
	}
}
