/* two-phase-commit: one coordinator and N participants decide one transaction.
 *
 * The SPIN counterpart of bench/programs/two-phase-commit.kb, for the side-by-side
 * table of docs/bench-distributed.md. Set N with spin -DN=… (default 3).
 *
 * How it maps: kbmc's process coordinator and process participant[N] (one thread
 * each) are the proctypes coordinator and participant(me); a process's memory
 * (`shared` in kbmc) is the proctype's own variables, since only its one thread
 * touches it; the channels keep their capacities and fields: request[N] of
 * capacity 1 (int), votes of capacity N (who, yes), decision[N] of capacity 1.
 * The vote is nondet(0, 1) in kbmc, a nondeterministic if here; atomic blocks stay
 * atomic. Verdict as in kbmc: safe (the assertion holds, no invalid end state).
 *
 * What differs: integers are bytes (kbmc's are 32-bit words), so SPIN's state
 * vector is smaller; init starts the processes inside one atomic step; xr/xs tell
 * SPIN's partial-order reduction which channels one process alone reads or
 * writes (kbmc works that out itself).
 */
#ifndef N
#define N 3
#endif

chan request[N] = [1] of { byte };
chan votes = [N] of { byte, bool };
chan decision[N] = [1] of { bool };

proctype coordinator() {
	byte yes;                      /* coordinator memory */
	bool decided;
	bool commit;
	byte i;
	byte n = 0;
	byte who;
	bool v;
	bool c;
	xr votes;
	for (i : 0 .. N - 1) {
		request[i]!i
	}
	for (i : 0 .. N - 1) {
		votes?who, v;
		n = n + (v -> 1 : 0)
	}
	c = (n == N);
	atomic {
		yes = n;
		commit = c;
		decided = true
	}
	for (i : 0 .. N - 1) {
		decision[i]!c
	}
}

proctype participant(byte me) {
	byte state;                    /* 0 working, 1 prepared, 2 aborted, 3 committed */
	bool votedYes;
	byte req;
	bool v;
	bool c;
	chan mine = request[me];       /* xr needs a plain channel name */
	chan told = decision[me];
	xr mine;
	xr told;
	mine?req;
	if
	:: v = true
	:: v = false
	fi;
	atomic {
		votedYes = v;
		state = (v -> 1 : 2)
	}
	votes!me, v;
	told?c;
	assert(!c || v);               /* committed although this participant voted no */
	state = (c -> 3 : 2)
}

init {
	byte i;
	atomic {
		run coordinator();
		for (i : 0 .. N - 1) {
			run participant(i)
		}
	}
}
