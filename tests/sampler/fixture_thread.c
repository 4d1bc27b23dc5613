/*
 * fixture_thread: the target of the -p test. Busy-loops in its main thread, starts a second busy
 * thread about 300 ms in (after the test has attached), and exits after about 1.5 s in total.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void spin_until(uint64_t end)
{
	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i;
}

static void *second_thread(void *arg)
{
	spin_until(*(uint64_t *)arg);
	return NULL;
}

int main(void)
{
	uint64_t t0 = now_ms(), end = t0 + 1500;
	pthread_t th;

	spin_until(t0 + 300);
	if (pthread_create(&th, NULL, second_thread, &end) != 0)
		return 1;
	spin_until(end);
	pthread_join(th, NULL);
	return 0;
}
