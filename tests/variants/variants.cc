// variants.cc: the C++ program of test_build_variants.py: its hot code is a template and a lambda
// from a header-like part, inlined into a member function by -O2 (inline frames are what a
// profiler must expand to name it), called from main through a non-inlined function. For SECS
// seconds (argv[1], default 1).
#include <ctime>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace shapes {
template <typename T> inline T mix(T a, T b) { return a * 31 + (b ^ (a >> 3)); }

struct Accumulator {
	std::vector<uint64_t> v;
	__attribute__((noinline)) uint64_t run(uint64_t n)
	{
		uint64_t s = 0;
		auto step = [&](uint64_t i) { s = mix<uint64_t>(s, i); };
		for (uint64_t i = 0; i < n; i++)
			step(i);
		v.push_back(s);
		if (v.size() > 64)
			v.clear();
		return s;
	}
};
} // namespace shapes

static volatile uint64_t sink, calls;

// The count after the call keeps it a call (a tail jump would leave drive out of every stack).
__attribute__((noinline)) static uint64_t drive(shapes::Accumulator &a)
{
	uint64_t r = a.run(400000);
	calls = calls + 1;
	return r;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
	// the process's CPU time (std::clock), as variants.c: as many samples on a busy machine
	std::clock_t end = std::clock() + static_cast<std::clock_t>(secs * CLOCKS_PER_SEC);
	shapes::Accumulator a;
	while (std::clock() < end)
		sink += drive(a);
	return 0;
}
