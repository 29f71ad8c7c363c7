/* primary-secondary: Stoller's second example; the primary hands its role over to
 * a volunteer while a primary and a secondary that name each other must remain.
 *
 * The SPIN counterpart of bench/programs/primary-secondary.kb, for the
 * side-by-side table of docs/bench-distributed.md. Set N with spin -DN=…
 * (default 3; N >= 2).
 *
 * How it maps: kbmc's process node[N] (one thread) is proctype node(me) and its
 * memory (isPrimary, isSecondary, primary, secondary) the proctype's own
 * variables, since only its one thread touches them; process auditor is proctype
 * auditor, its arrays local as in kbmc. The channels keep their capacities and
 * fields: ctl[N] of capacity 2 carrying (kind, arg), answer of capacity N
 * carrying (candidate, yes), audit of capacity N carrying (node, isPrimary,
 * isSecondary, primary, secondary). A candidate's answer is nondet(0, 1) in kbmc,
 * a nondeterministic if here. The same assertions; verdict safe (no assertion
 * fails, no invalid end state).
 *
 * What differs: kinds, args and counters are bytes, primary and secondary shorts
 * (-1: none) where kbmc has 32-bit ints; init starts the processes inside one
 * atomic step; xr tells SPIN's partial-order reduction that node i alone reads
 * ctl[i] and the auditor alone audit (the primary alone reads answer, but
 * all nodes share one proctype and xr cannot name one instance).
 */
#ifndef N
#define N 3
#endif
#define INTENT 1
#define ACK 2
#define VOLUNTEER 3
#define ELECTED 4
#define REJECTED 5
#define NEWPRIMARY 6
#define CANCEL 7
#define STOP 8

chan ctl[N] = [2] of { byte, byte };              /* (kind, arg) to node i */
chan answer = [N] of { byte, bool };              /* (candidate, yes) to the primary */
chan audit = [N] of { byte, bool, bool, short, short };

proctype node(byte me) {
	bool isPrimary;                /* node memory */
	bool isSecondary;
	short primary = -1;            /* a secondary's primary */
	short secondary = -1;          /* a primary's secondary */
	byte kind;
	byte arg;
	byte c;
	short chosen;
	byte who;
	bool yes;
	short old;
	chan in = ctl[me];
	xr in;
	atomic {
		/* The roles at the start. */
		isPrimary = (me == 0);
		isSecondary = (me == 1);
		primary = (me == 1 -> 0 : -1);
		secondary = (me == 0 -> 1 : -1)
	}
	if
	:: me == 0 ->
		ctl[1]!INTENT, 0;
		in?kind, arg;                  /* ACK */
		for (c : 2 .. N - 1) {
			ctl[c]!VOLUNTEER, 0
		}
		chosen = -1;
		for (c : 2 .. N - 1) {
			answer?who, yes;
			if
			:: yes && chosen < 0 ->
				chosen = who;
				ctl[who]!ELECTED, secondary
			:: yes && chosen >= 0 ->
				ctl[who]!REJECTED, 0
			:: else
			fi
		}
		if
		:: chosen < 0 -> ctl[secondary]!CANCEL, 0
		:: else ->
			in?kind, arg;              /* STOP */
			assert(kind == STOP);      /* the old primary stopped without the secondary's word */
			isPrimary = false;
			secondary = -1
		fi
	:: me == 1 ->
		in?kind, arg;                  /* INTENT */
		ctl[0]!ACK, 1;
		in?kind, arg;                  /* NEWPRIMARY or CANCEL */
		if
		:: kind == NEWPRIMARY ->
			old = primary;
			primary = arg;
			ctl[old]!STOP, 1
		:: else
		fi
	:: me > 1 ->
		in?kind, arg;                  /* VOLUNTEER */
		if
		:: yes = true
		:: yes = false
		fi;
		answer!me, yes;
		if
		:: yes ->
			in?kind, arg;              /* ELECTED or REJECTED */
			if
			:: kind == ELECTED ->
				isPrimary = true;
				secondary = arg;
				ctl[arg]!NEWPRIMARY, me
			:: else
			fi
		:: else
		fi
	fi;
	audit!me, isPrimary, isSecondary, primary, secondary
}

proctype auditor() {
	bool ok;                       /* the final state satisfies the invariant */
	bool isP[N];                   /* every node's report */
	bool isS[N];
	short primaryOf[N];
	short secondaryOf[N];
	byte primaries = 0;
	byte secondaries = 0;
	byte k;
	byte i;
	bool p;
	bool s;
	short pr;
	short se;
	short j;
	xr audit;
	for (k : 0 .. N - 1) {
		audit?i, p, s, pr, se;
		isP[i] = p;
		isS[i] = s;
		primaryOf[i] = pr;
		secondaryOf[i] = se;
		primaries = primaries + (p -> 1 : 0);
		secondaries = secondaries + (s -> 1 : 0)
	}
	assert(primaries == 1 && secondaries == 1);   /* not exactly one primary and one secondary */
	for (i : 0 .. N - 1) {
		if
		:: isP[i] ->
			j = secondaryOf[i];
			assert(j >= 0 && j < N && isS[j] && primaryOf[j] == i)  /* the primary and the secondary do not name each other */
		:: else
		fi
	}
	ok = true
}

init {
	byte i;
	atomic {
		for (i : 0 .. N - 1) {
			run node(i)
		}
		run auditor()
	}
}
