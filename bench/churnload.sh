# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benches that compare views under the no-pause churn (churn_age.sh, side.sh): true,
# ls, sh -c, python3 -c pass and awk in a loop with no pause, beside a process that starts a thread
# every 50 ms, each doing ~0.5 s of work and sleeping between (start_churn DIR: DIR holds the
# thread program; non-zero when it does not build), and their stop (stop_churn). The caller's EXIT
# trap calls stop_churn.
churn_pids=()
start_churn() {
	printf '%s\n' '#include <pthread.h>' '#include <time.h>' '#include <unistd.h>' \
		'static volatile unsigned long sink;' \
		'static void *worker(void *a) { (void)a; struct timespec t = {0, 20000000}; for (int k = 0; k < 25; k++) { for (unsigned long i = 0; i < 200000; i++) sink += i * i; nanosleep(&t, NULL); } return NULL; }' \
		'int main(void) { for (;;) { pthread_t t; if (pthread_create(&t, NULL, worker, NULL) == 0) pthread_detach(t); usleep(50000); } }' \
		>"$1/threads.c"
	gcc -O1 -pthread -o "$1/threads" "$1/threads.c" || return 1
	"$1/threads" & churn_pids+=($!)
	( while :; do true; ls / >/dev/null; sh -c 'echo x >/dev/null'; python3 -c pass; awk 'BEGIN{}'; done ) \
		>/dev/null 2>&1 & churn_pids+=($!)
}
stop_churn() {
	local p
	for p in "${churn_pids[@]}"; do kill "$p" 2>/dev/null; done
	churn_pids=()
}
