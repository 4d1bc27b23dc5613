/*
 * static_cxx: the fixture of a C++ program linked with g++ -static, whose executable has .eh_frame
 * but no .eh_frame_hdr (GCC links static executables without --eh-frame-hdr). Its call structure is
 * main -> run -> Mixer::churn -> leaf, each noinline, and leaf is where the time goes, so every
 * sample in leaf has main above it. Runs for the seconds given (default 3).
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(const std::vector<unsigned long> &v, unsigned long n)
{
	unsigned long x = n;
	for (int round = 0; round < 64; round++)
		for (unsigned long e : v)
			x = x * 6364136223846793005ul + e;
	sink += x;
	return x;
}

struct Mixer {
	std::vector<unsigned long> v;
	std::string tag;
	explicit Mixer(size_t n) : v(n), tag("mixer") {
		for (size_t i = 0; i < n; i++)
			v[i] = i * 2654435761ul;
	}
	__attribute__((noinline)) unsigned long churn(unsigned long n)
	{
		unsigned long r = leaf(v, n + tag.size());
		sink += r;
		return r ^ n;
	}
};

__attribute__((noinline)) static unsigned long run(double secs)
{
	Mixer m(4096);
	unsigned long acc = 0;
	auto t0 = std::chrono::steady_clock::now();
	do
		acc += m.churn(acc);
	while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < secs);
	return acc;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 3.0;
	unsigned long acc = run(secs);
	std::printf("%lu\n", acc & 1);
	return 0;
}
