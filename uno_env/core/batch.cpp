// Many games of one rule set stepped per call: the native path of uno_env/vector.py (VectorGames).
//
// A Batch holds B games (CoreStates, each with its own numpy Generator) of one Rules. `step` checks every
// action against the game's legal ids, then applies them with the GIL released, on `threads` threads when
// asked (slices of the batch: each game draws from its own bit generator, so the slices are independent and
// the outputs do not depend on the thread count), and writes each game's rewards and end flags and, for a game
// that goes on, its deciding seat, observation row (observe.cpp) and legal mask into the caller's arrays. It
// returns the games that ended: `deal_seeded` deals each a new game seeded exactly as the Python path seeds it
// (from the slot's seeding Generator; `deal` takes a Generator instead), puts the new game in (handing the finished one out, for VectorGames.final_states) and `write_rows` writes
// its row.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "binding.hpp"
#include "engine.hpp"
#include "observe.hpp"

namespace py = pybind11;
using namespace uno;

namespace {

// Threads a batch may use at most (each is a real thread, started once).
constexpr int MAX_THREADS = 256;
// Games a batch may hold at most.
constexpr int MAX_GAMES = 1 << 24;

// A fixed set of worker threads that share the parts of one job with the calling thread.
class Pool {
  public:
    explicit Pool(int threads) {
        for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { work(); });
    }
    Pool(const Pool &) = delete;
    Pool &operator=(const Pool &) = delete;
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto &w : workers_) w.join();
    }

    // fn(part) for every part in [0, parts); returns when all are done, rethrowing the first error.
    void run(int parts, const std::function<void(int)> &fn) {
        if (workers_.empty() || parts <= 1) {
            for (int p = 0; p < parts; ++p) fn(p);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(m_);
            job_ = &fn;
            parts_ = parts;
            next_ = done_ = 0;
            error_ = nullptr;
            ++generation_;
        }
        wake_.notify_all();
        take_parts();
        std::unique_lock<std::mutex> lock(m_);
        finished_.wait(lock, [this] { return done_ == parts_; });
        if (error_) std::rethrow_exception(error_);
    }

  private:
    void take_parts() {
        while (true) {
            const std::function<void(int)> *job;
            int part;
            {
                std::lock_guard<std::mutex> lock(m_);
                if (next_ >= parts_) return;
                part = next_++;
                job = job_;
            }
            std::exception_ptr error;
            try {
                (*job)(part);
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(m_);
            if (error && !error_) error_ = error;
            if (++done_ == parts_) finished_.notify_all();
        }
    }

    void work() {
        std::uint64_t seen = 0;
        while (true) {
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            take_parts();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable wake_, finished_;
    const std::function<void(int)> *job_ = nullptr;
    int parts_ = 0, next_ = 0, done_ = 0;
    std::uint64_t generation_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

const char *dtype_name(int which) {
    switch (which) {
        case 0: return "int64";
        case 1: return "float32";
        case 2: return "int8";
        default: return "bool";
    }
}

template <typename T>
int dtype_code() {
    if (std::is_same<T, int64_t>::value) return 0;
    if (std::is_same<T, float>::value) return 1;
    if (std::is_same<T, int8_t>::value) return 2;
    return 3;
}

// The data of `a` after checking it is a C-contiguous array of T with exactly `shape` (and writable if asked).
template <typename T>
T *checked(py::array &a, const char *name, std::initializer_list<py::ssize_t> shape, bool writable = true) {
    static const int want_type = py::dtype::of<T>().normalized_num();
    bool ok = a.dtype().normalized_num() == want_type && a.dtype().byteorder() != '>' &&
              a.ndim() == static_cast<py::ssize_t>(shape.size()) && (a.flags() & py::array::c_style);
    py::ssize_t d = 0;
    for (auto want : shape) ok = ok && a.shape(d++) == want;
    if (!ok) {
        std::string want_shape;
        for (auto v : shape) want_shape += (want_shape.empty() ? "" : ", ") + std::to_string(v);
        if (shape.size() == 1) want_shape += ",";
        std::string got = py::str(a.dtype()).cast<std::string>() + " " + py::str(py::tuple(py::cast(
            std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim())))).cast<std::string>();
        throw std::invalid_argument(std::string(name) + " must be a C-contiguous " + dtype_name(dtype_code<T>()) +
                                    " array of shape (" + want_shape + "), got " + got);
    }
    if (writable && !a.writeable()) throw std::invalid_argument(std::string(name) + " must be writable");
    return static_cast<T *>(writable ? a.mutable_data() : const_cast<void *>(a.data()));
}

// Holds a batch for one call: a second thread calling in meanwhile is refused rather than racing it.
class Busy {
  public:
    explicit Busy(std::atomic<bool> &flag) : flag_(flag) {
        if (flag_.exchange(true))
            throw std::runtime_error("the batch is in use by another thread: call it from one thread at a time");
    }
    Busy(const Busy &) = delete;
    Busy &operator=(const Busy &) = delete;
    ~Busy() { flag_ = false; }

  private:
    std::atomic<bool> &flag_;
};

// uno_env/env_common.py's final_rewards: win_loss (the state's returns) or points (/100), in float64 as
// Python computes them, stored as float32.
void final_rewards(const Rules &g, const State &s, bool points, float *out) {
    const int n = s.n;
    if (s.winner < 0) {
        std::fill(out, out + n, 0.0f);
        return;
    }
    if (!points) {
        double lose = -1.0 / (n - 1);
        for (int q = 0; q < n; ++q) out[q] = q == s.winner ? 1.0f : static_cast<float>(lose);
        return;
    }
    const auto &pts = g.match ? s.scores : s.round_points;
    double sign = g.winner_takes ? 1.0 : -1.0;  // penalty_low / elimination: lowest total wins
    for (int q = 0; q < n; ++q) out[q] = static_cast<float>(sign * pts[q] / 100.0);
}

class Batch {
  public:
    Batch(py::object rules, const py::dict &layout, int num_games, bool points, long long cut_at, int threads)
        : rules_obj_(rules), g_(rules.cast<const Rules *>()), points_(points), cut_at_(cut_at),
          threads_(threads), pool_(check_threads(threads)) {
        if (num_games < 1 || num_games > MAX_GAMES)
            throw std::invalid_argument("num_games must be 1 to " + std::to_string(MAX_GAMES));
        if (cut_at < 0) throw std::invalid_argument("cut_at must be 0 (no cap) or a whole number, 1 or more");
        layout_ = layout_from(layout, *g_);
        objs_.assign(num_games, py::none());
        games_.assign(num_games, nullptr);
        discards_.resize(num_games);
    }

    int num_games() const { return static_cast<int>(games_.size()); }
    int threads() const { return threads_; }
    int observation_size() const { return layout_.size; }

    // Put a new game, dealt from `generator`, in slot i; returns (the game it replaces or None, the new one).
    py::tuple deal(int i, py::object generator) {
        Busy hold(busy_);
        check_index(i);
        auto cs = std::make_unique<CoreState>();
        attach(*cs, std::move(generator));
        new_game(*g_, cs->s);
        return put(i, std::move(cs));
    }

    py::tuple put(int i, std::unique_ptr<CoreState> cs) {
        CoreState *raw = cs.get();
        py::object fresh = py::cast(std::move(cs));
        py::object old = objs_[i];
        objs_[i] = fresh;
        games_[i] = raw;
        discards_[i] = DiscardCounts{};
        return py::make_tuple(old, fresh);
    }

    // deal(i, Generator(PCG64(seeder.integers(2**63 - 1)))), the game's generator held by the core
    py::tuple deal_seeded(int i, py::object seeder) {
        check_index(i);
        auto seed = static_cast<uint64_t>(rng_integers(bitgen_of(seeder), INT64_MAX));
        Busy hold(busy_);
        auto cs = std::make_unique<CoreState>();
        cs->s.rng.seed(seed);
        new_game(*g_, cs->s);
        return put(i, std::move(cs));
    }

    py::object state(int i) const {
        check_index(i);
        return objs_[i];
    }

    // Apply actions[i] to game i and write the outputs (see the top of the file); returns the ended games.
    py::list step(py::array actions, py::array seat, py::array obs, py::array mask, py::array rewards,
                  py::array terminated, py::array truncated, py::array steps) {
        Busy hold(busy_);
        const py::ssize_t b = num_games();
        require_dealt();
        const int64_t *act = checked<int64_t>(actions, "actions", {b}, false);
        Out out = outputs(seat, obs, mask);
        float *rew = checked<float>(rewards, "rewards", {b, g_->num_players});
        bool *term = checked<bool>(terminated, "terminated", {b});
        bool *trunc = checked<bool>(truncated, "truncated", {b});
        int64_t *count = checked<int64_t>(steps, "steps", {b});
        ended_.assign(static_cast<std::size_t>(b), 0);  // reused call after call: no allocation per step
        auto &ended = ended_;
        py::ssize_t illegal = -1;
        {
            py::gil_scoped_release nogil;
            for (py::ssize_t i = 0; i < b && illegal < 0; ++i) {  // every action checked before any game moves
                const auto &legal = legal_actions(*g_, games_[i]->s);
                if (std::find(legal.begin(), legal.end(), act[i]) == legal.end()) illegal = i;
            }
            if (illegal < 0) {
                const int parts = static_cast<int>(std::min<py::ssize_t>(threads_, b));
                pool_.run(parts, [&](int part) {
                    py::ssize_t lo = b * part / parts, hi = b * (part + 1) / parts;
                    for (py::ssize_t i = lo; i < hi; ++i)
                        ended[i] = advance(i, static_cast<int>(act[i]), out, rew, term, trunc, count);
                });
            }
        }
        if (illegal >= 0) refuse(illegal, act[illegal]);
        py::list finished;
        for (py::ssize_t i = 0; i < b; ++i)
            if (ended[i]) finished.append(i);
        return finished;
    }

    // Write the seat, observation and mask rows of the games `indices` (None: every game).
    void write_rows(py::object indices, py::array seat, py::array obs, py::array mask) {
        Busy hold(busy_);
        require_dealt();
        Out out = outputs(seat, obs, mask);
        if (indices.is_none()) {
            for (py::ssize_t i = 0; i < num_games(); ++i) write_row(i, out);
            return;
        }
        for (auto h : indices) {
            int i = h.cast<int>();
            check_index(i);
            write_row(i, out);
        }
    }

    // Write seats[i]'s observation of game i (any seat, deciding or not) into out[i].
    void encode(py::array seats, py::array out) {
        Busy hold(busy_);
        const py::ssize_t b = num_games();
        require_dealt();
        const int64_t *who = checked<int64_t>(seats, "seats", {b}, false);
        float *rows = checked<float>(out, "out", {b, layout_.size});
        for (py::ssize_t i = 0; i < b; ++i) {
            const State &s = games_[i]->s;
            if (who[i] < 0 || who[i] >= s.n)
                throw std::invalid_argument("seats[" + std::to_string(i) + "] = " + std::to_string(who[i]) +
                                            " is not a seat of the table (0 to " + std::to_string(s.n - 1) + ")");
            if (s.is_over) throw std::invalid_argument("game " + std::to_string(i) + " is over: deal it again first");
            encode_row(layout_, s, static_cast<int>(who[i]), rows + i * layout_.size, &discards_[i]);
        }
    }

  private:
    struct Out {
        int64_t *seat;
        float *obs;
        int8_t *mask;
    };

    static int check_threads(int threads) {
        if (threads < 1 || threads > MAX_THREADS)
            throw std::invalid_argument("threads must be 1 to " + std::to_string(MAX_THREADS) + "; got " +
                                        std::to_string(threads));
        return threads;
    }

    void check_index(int i) const {
        if (i < 0 || i >= num_games())
            throw std::out_of_range("game index " + std::to_string(i) + " is outside the batch (0 to " +
                                    std::to_string(num_games() - 1) + ")");
    }

    void require_dealt() const {
        for (auto *c : games_)
            if (c == nullptr) throw std::runtime_error("every game of the batch must be dealt first (deal)");
    }

    Out outputs(py::array &seat, py::array &obs, py::array &mask) {
        const py::ssize_t b = num_games();
        return Out{checked<int64_t>(seat, "seat", {b}), checked<float>(obs, "obs", {b, layout_.size}),
                   checked<int8_t>(mask, "mask", {b, g_->num_actions})};
    }

    void write_row(py::ssize_t i, const Out &out) {
        State &s = games_[i]->s;
        if (s.is_over) throw std::logic_error("game " + std::to_string(i) + " is over: deal it again first");
        out.seat[i] = s.current_seat;
        encode_row(layout_, s, s.current_seat, out.obs + i * layout_.size, &discards_[i]);
        int8_t *m = out.mask + i * g_->num_actions;
        std::fill(m, m + g_->num_actions, int8_t{0});
        for (int a : legal_actions(*g_, s)) m[a] = 1;
    }

    // One game's step (no Python: runs on any thread); true when the game ended (no row written).
    bool advance(py::ssize_t i, int action, const Out &out, float *rew, bool *term, bool *trunc, int64_t *count) {
        State &s = games_[i]->s;
        const int n = g_->num_players;
        float *r = rew + i * n;
        std::fill(r, r + n, 0.0f);
        term[i] = trunc[i] = false;
        uno::step(*g_, s, action);
        count[i] += 1;
        if (s.is_over) {
            final_rewards(*g_, s, points_, r);
            term[i] = !s.truncated;
            trunc[i] = s.truncated;
        } else if (cut_at_ > 0 && count[i] >= cut_at_) {  // the training cap: no winner, no rewards
            trunc[i] = true;
        } else {
            write_row(i, out);
            return false;
        }
        count[i] = 0;
        return true;
    }

    [[noreturn]] void refuse(py::ssize_t i, int64_t action) {
        State &s = games_[i]->s;
        std::vector<int> legal = legal_actions(*g_, s);
        std::sort(legal.begin(), legal.end());
        std::string ids;
        for (int a : legal) ids += (ids.empty() ? "" : ", ") + std::to_string(a);
        std::string msg = "game " + std::to_string(i) + ": action " + std::to_string(action) +
                          " is not legal for P" + std::to_string(s.current_seat) + "; legal ids: [" + ids + "]";
        py::object error = py::module_::import("uno_env.errors").attr("IllegalActionError");
        PyErr_SetString(error.ptr(), msg.c_str());
        throw py::error_already_set();
    }

    std::atomic<bool> busy_{false};
    py::object rules_obj_;  // keeps the Rules alive
    const Rules *g_;
    ObsLayout layout_;
    bool points_;
    long long cut_at_;
    int threads_;
    Pool pool_;
    std::vector<py::object> objs_;   // the CoreState of each game, as Python holds it (NativeState)
    std::vector<CoreState *> games_;  // the same, for the loops without the GIL
    std::vector<uint8_t> ended_;      // step's scratch: which games ended
    std::vector<DiscardCounts> discards_;  // each game's discard pile as last counted (observe.hpp)
};

// One seat's observation of one game held for Python (a NativeState's CoreState): ObservationEncoder.encode_into
// on the core, for the facade's single games (uno_env/observation.py calls it for a native state).
class RowEncoder {
  public:
    RowEncoder(py::object rules, const py::dict &layout)
        : rules_obj_(rules), g_(rules.cast<const Rules *>()), layout_(layout_from(layout, *g_)) {}

    void encode_into(const CoreState &cs, int seat, py::array out) const {
        const State &s = cs.s;
        if (s.n != g_->num_players) throw std::invalid_argument("the state is not a game of these rules");
        if (seat < 0 || seat >= s.n)
            throw std::invalid_argument("seat " + std::to_string(seat) + " is not a seat of the table (0 to " +
                                        std::to_string(s.n - 1) + ")");
        float *row = checked<float>(out, "out", {static_cast<py::ssize_t>(layout_.size)});
        encode_row(layout_, s, seat, row, nullptr);
    }

  private:
    py::object rules_obj_;  // keeps the Rules alive
    const Rules *g_;
    ObsLayout layout_;
};

}  // namespace

void bind_batch(py::module_ &m) {
    py::class_<Batch>(m, "Batch", "Many games of one rule set stepped per call (uno_env/vector.py's native path).")
        .def(py::init<py::object, const py::dict &, int, bool, long long, int>(), py::arg("rules"),
             py::arg("layout"), py::arg("num_games"), py::arg("points"), py::arg("cut_at"), py::arg("threads"))
        .def_property_readonly("num_games", &Batch::num_games)
        .def_property_readonly("threads", &Batch::threads)
        .def_property_readonly("observation_size", &Batch::observation_size)
        .def("deal", &Batch::deal, py::arg("index"), py::arg("generator"))
        .def("deal_seeded", &Batch::deal_seeded, py::arg("index"), py::arg("seeder"))
        .def("state", &Batch::state, py::arg("index"))
        // arrays only, never converted: a converted copy would take the writes
        .def("step", &Batch::step, py::arg("actions").noconvert(), py::arg("seat").noconvert(),
             py::arg("obs").noconvert(), py::arg("mask").noconvert(), py::arg("rewards").noconvert(),
             py::arg("terminated").noconvert(), py::arg("truncated").noconvert(), py::arg("steps").noconvert())
        .def("write_rows", &Batch::write_rows, py::arg("indices"), py::arg("seat").noconvert(),
             py::arg("obs").noconvert(), py::arg("mask").noconvert())
        .def("encode", &Batch::encode, py::arg("seats").noconvert(), py::arg("out").noconvert());
    py::class_<RowEncoder>(m, "RowEncoder", "One seat's observation row of one native game (observe.cpp).")
        .def(py::init<py::object, const py::dict &>(), py::arg("rules"), py::arg("layout"))
        .def("encode_into", &RowEncoder::encode_into, py::arg("state"), py::arg("seat"), py::arg("out").noconvert());
}
