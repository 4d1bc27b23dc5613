// cxx_fixture: a CPU-bound C++ program with namespaces, templates, a class with methods, an
// overloaded function and a lambda, so that the profile holds the kinds of mangled names that
// demangling has to get right. Built -O1 -fno-omit-frame-pointer -fno-inline: every function stays a
// function and the frame-pointer call chains are whole.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace geo {
namespace detail {

template <typename T>
T accumulate_squares(const std::vector<T> &v)
{
	T sum = 0;
	for (const T &x : v)
		sum += x * x + static_cast<T>(1);
	return sum;
}

} // namespace detail

class Grid {
public:
	explicit Grid(std::size_t n) : cells_(n) {}
	void fill(std::uint64_t seed);
	double smooth(int rounds) const;

private:
	std::vector<double> cells_;
};

void Grid::fill(std::uint64_t seed)
{
	for (auto &c : cells_) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		c = static_cast<double>(seed >> 11) / 9007199254740992.0;
	}
}

double Grid::smooth(int rounds) const
{
	double acc = 0;
	for (int r = 0; r < rounds; r++)
		for (std::size_t i = 1; i + 1 < cells_.size(); i++)
			acc += (cells_[i - 1] + cells_[i] + cells_[i + 1]) / 3.0;
	return acc;
}

} // namespace geo

namespace util {
long mix(long x) { return (x ^ (x >> 7)) * 31; }
double mix(double x) { return x * 1.0000001 + 0.5; }
} // namespace util

static volatile double sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto start = std::chrono::steady_clock::now();
	std::vector<long> ints(4096);
	std::vector<double> dbls(4096);
	geo::Grid grid(4096);
	auto lambda = [](std::vector<long> &v) {
		for (auto &x : v)
			x = util::mix(x + 1);
	};
	std::uint64_t seed = 1;
	while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < secs) {
		grid.fill(seed++);
		double s = grid.smooth(2);
		s += static_cast<double>(geo::detail::accumulate_squares(ints));
		s += geo::detail::accumulate_squares(dbls);
		for (auto &d : dbls)
			d = util::mix(d);
		lambda(ints);
		sink = s;
	}
	return 0;
}
