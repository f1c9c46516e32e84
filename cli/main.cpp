// tinygpt — command-line front end to the core: train, sample, bench.
//
//   tinygpt train  [--data FILE] [--layers N --heads N --embd N --ctx N --batch N --lr X ...]
//   tinygpt sample --ckpt FILE [--prompt TEXT --tokens N --temperature X --top-k N --top-p X --seed N]
//   tinygpt bench  [--threads N] [--steps N]
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tinygpt/checkpoint.h"
#include "tinygpt/error.h"
#include "tinygpt/io.h"
#include "tinygpt/runtime.h"
#include "tinygpt/sample.h"
#include "tinygpt/trainer.h"

using namespace tinygpt;

#ifndef TINYGPT_DATA_DIR
#define TINYGPT_DATA_DIR "data"
#endif

namespace {

using Clock = std::chrono::steady_clock;
using tinygpt::Error;

const char* kUsage =
    "usage:\n"
    "  tinygpt train  [--data FILE] [--layers 4] [--heads 4] [--embd 128] [--ctx 64] [--batch 12]\n"
    "                 [--lr 1e-3] [--min-lr 1e-4] [--warmup 100] [--steps 2000] [--weight-decay 0.1]\n"
    "                 [--clip 1.0] [--eval-every 250] [--eval-batches 20] [--seed 1337] [--threads N]\n"
    "                 [--out ckpt.bin] [--save-every N] [--resume ckpt.bin] [--until STEP] [--log-every N]\n"
    "  tinygpt sample --ckpt ckpt.bin [--prompt TEXT] [--tokens 500] [--temperature 1.0] [--top-k 0]\n"
    "                 [--top-p 1.0] [--seed 0] [--window-keep 0] [--threads N]\n"
    "  tinygpt bench  [--threads N] [--steps 20] [--config tiny|S|M|all]\n"
    "Without --data, train uses the built-in corpus (tiny Shakespeare).\n";

// --name value pairs; flags listed in `allowed` only.
class Args {
 public:
  Args(int argc, char** argv, int first, const std::vector<std::string>& allowed) {
    for (int i = first; i < argc; i++) {
      std::string a = argv[i];
      if (a == "-h" || a == "--help") throw Error(std::string("help"));
      if (a.rfind("--", 0) != 0) throw Error("unexpected argument '" + a + "'");
      std::string name = a.substr(2), value;
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else {
        if (i + 1 >= argc) throw Error("--" + name + " needs a value");
        value = argv[++i];
      }
      bool ok = false;
      for (const std::string& s : allowed) ok = ok || s == name;
      if (!ok) throw Error("unknown option --" + name);
      values_[name] = value;
    }
  }
  bool has(const std::string& k) const { return values_.count(k) != 0; }
  std::string str(const std::string& k, const std::string& def) const { return has(k) ? values_.at(k) : def; }
  long integer(const std::string& k, long def) const {
    if (!has(k)) return def;
    const std::string& v = values_.at(k);
    char* end = nullptr;
    errno = 0;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno) throw Error("--" + k + " expects an integer, got '" + v + "'");
    return x;
  }
  double number(const std::string& k, double def) const {
    if (!has(k)) return def;
    const std::string& v = values_.at(k);
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(x)) throw Error("--" + k + " expects a number, got '" + v + "'");
    return x;
  }

 private:
  std::map<std::string, std::string> values_;
};

int to_int(long v, const char* name) {
  if (v < -2147483647L || v > 2147483647L) throw Error(std::string("--") + name + " is out of range");
  return int(v);
}

void set_threads(const Args& args) {
  const int n = to_int(args.integer("threads", tinygpt::max_threads()), "threads");
  tinygpt::set_num_threads(n);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

std::string progress_bar(double fraction, int width = 24) {
  fraction = std::fmin(1.0, std::fmax(0.0, fraction));
  const int filled = int(fraction * width + 0.5);
  return "[" + std::string(size_t(filled), '#') + std::string(size_t(width - filled), '.') + "]";
}

// ---- train -------------------------------------------------------------------------------

int cmd_train(const Args& args) {
  set_threads(args);
  const std::string data_path = args.str("data", std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
  std::vector<uint8_t> corpus = io::read_file(data_path);
  if (corpus.empty()) throw Error("'" + data_path + "' is empty: give a file with some text in it");

  std::unique_ptr<train::Trainer> trainer;
  if (args.has("resume")) {
    const std::string path = args.str("resume", "");
    std::vector<uint8_t> bytes = io::read_file(path);
    trainer = train::Trainer::load(bytes.data(), bytes.size());
    std::printf("resumed %s at step %lld\n", path.c_str(), (long long)trainer->steps_done());
  } else {
    model::Config mc;
    mc.n_layer = to_int(args.integer("layers", mc.n_layer), "layers");
    mc.n_head = to_int(args.integer("heads", mc.n_head), "heads");
    mc.n_embd = to_int(args.integer("embd", mc.n_embd), "embd");
    mc.block_size = to_int(args.integer("ctx", mc.block_size), "ctx");
    mc.seed = uint64_t(args.integer("seed", long(mc.seed)));
    train::TrainConfig tc;
    tc.batch_size = to_int(args.integer("batch", tc.batch_size), "batch");
    tc.lr = float(args.number("lr", tc.lr));
    tc.min_lr = float(args.number("min-lr", tc.lr / 10));
    tc.warmup = to_int(args.integer("warmup", tc.warmup), "warmup");
    tc.steps = to_int(args.integer("steps", tc.steps), "steps");
    if (!args.has("warmup") && tc.warmup > tc.steps) tc.warmup = tc.steps / 10;
    tc.weight_decay = float(args.number("weight-decay", tc.weight_decay));
    tc.grad_clip = float(args.number("clip", tc.grad_clip));
    tc.eval_batches = to_int(args.integer("eval-batches", tc.eval_batches), "eval-batches");
    trainer = std::make_unique<train::Trainer>(mc, tc);
  }
  trainer->set_corpus(std::move(corpus));
  if (!trainer->corpus_matches_checkpoint())
    std::printf("warning: %s is not the corpus this checkpoint was trained on\n", data_path.c_str());

  const model::Config& mc = trainer->model_config();
  const train::TrainConfig& tc = trainer->train_config();
  const int eval_every = to_int(args.integer("eval-every", 250), "eval-every");
  const int log_every = to_int(args.integer("log-every", 10), "log-every");
  const int save_every = to_int(args.integer("save-every", 0), "save-every");
  const std::string out = args.str("out", "");
  // --until N stops this run at step N (default: the end of the schedule); a later --resume continues
  const int64_t until = args.integer("until", tc.steps);
  if (until < trainer->steps_done() || until > tc.steps)
    throw Error("--until must be between the current step (" + std::to_string(trainer->steps_done()) + ") and --steps (" +
                std::to_string(tc.steps) + ")");
  if (eval_every < 0 || log_every < 1 || save_every < 0) throw Error("--eval-every, --log-every, --save-every must be positive");
  const data::ByteDataset& ds = trainer->dataset();
  std::printf("model: %d layers, %d heads, width %d, context %d: %lld parameters\n", mc.n_layer, mc.n_head, mc.n_embd,
              mc.block_size, (long long)trainer->model().num_parameters());
  std::printf("data: %s, %zu bytes (%zu train, %zu val)%s\n", data_path.c_str(), ds.size(), ds.train_size(),
              ds.val_size(), ds.val_overlaps_train(mc.block_size) ? " (too short for a separate validation split)" : "");
  std::printf("training: batch %d, lr %.2g -> %.2g, warmup %d, %d steps, %d thread(s), %s kernels\n", tc.batch_size,
              tc.lr, tc.min_lr, tc.warmup, tc.steps, tinygpt::num_threads(), tinygpt::simd_backend());

  const bool tty = isatty(fileno(stdout));
  const int64_t tokens_per_step = int64_t(tc.batch_size) * mc.block_size;
  const auto t_start = Clock::now();
  auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  // throughput counts training time only; evaluations are timed separately for the ETA
  double window_train_s = 0.0, last_eval_s = 0.0, tok_per_s = 0.0;
  int64_t window_steps = 0;
  float last_val = NAN;
  double loss_sum = 0.0;
  int loss_n = 0;
  auto save = [&] {
    if (!out.empty()) io::write_file(out, trainer->save());
  };
  auto evaluate = [&] {
    const auto t0 = Clock::now();
    last_val = trainer->evaluate();
    last_eval_s = seconds_since(t0);
  };
  if (trainer->steps_done() == 0 && eval_every > 0) {
    evaluate();
    std::printf("step      0/%d | val %.4f (ln 256 = 5.545)\n", tc.steps, last_val);
  }

  while (trainer->steps_done() < until) {
    const auto t0 = Clock::now();
    loss_sum += trainer->step();
    window_train_s += seconds_since(t0);
    loss_n++;
    window_steps++;
    const int64_t s = trainer->steps_done();
    const bool do_eval = eval_every > 0 && (s % eval_every == 0 || s == until);
    if (do_eval) evaluate();
    if (s % log_every == 0 || do_eval || s == until) {
      if (window_train_s > 0) tok_per_s = double(window_steps * tokens_per_step) / window_train_s;
      window_train_s = 0;
      window_steps = 0;
      const int64_t evals_left = eval_every > 0 ? (tc.steps - s) / eval_every : 0;
      const double eta = tok_per_s > 0 ? double((tc.steps - s) * tokens_per_step) / tok_per_s + evals_left * last_eval_s : NAN;
      char val[32] = "";
      if (std::isfinite(last_val)) std::snprintf(val, sizeof val, " | val %.4f", last_val);
      std::printf("%sstep %6lld/%d | loss %.4f%s | lr %.2e | %7.0f tok/s | %s %3.0f%% | %s elapsed, ETA %s%s",
                  tty ? "\r" : "", (long long)s, tc.steps, loss_sum / loss_n, val, trainer->learning_rate(), tok_per_s,
                  progress_bar(double(s) / tc.steps).c_str(), 100.0 * s / tc.steps,
                  format_duration(seconds_since(t_start)).c_str(), format_duration(eta).c_str(),
                  tty && !do_eval ? "   " : "\n");
      std::fflush(stdout);
      loss_sum = 0;
      loss_n = 0;
    }
    if (save_every > 0 && s % save_every == 0) save();
  }
  if (tty) std::printf("\n");
  const double total = seconds_since(t_start);
  if (std::isfinite(last_val)) std::printf("final val loss %.4f after %lld steps\n", last_val, (long long)trainer->steps_done());
  std::printf("trained in %s\n", format_duration(total).c_str());
  if (!out.empty()) {
    save();
    std::printf("saved checkpoint to %s\n", out.c_str());
  }
  return 0;
}

// ---- sample --------------------------------------------------------------------------------

int cmd_sample(const Args& args) {
  set_threads(args);
  if (!args.has("ckpt")) throw Error("sample needs --ckpt FILE (a checkpoint written by 'tinygpt train --out')");
  std::vector<uint8_t> bytes = io::read_file(args.str("ckpt", ""));
  auto trainer = train::Trainer::load(bytes.data(), bytes.size());
  sample::Options o;
  o.temperature = float(args.number("temperature", 1.0));
  o.top_k = to_int(args.integer("top-k", 0), "top-k");
  o.top_p = float(args.number("top-p", 1.0));
  o.seed = uint64_t(args.integer("seed", 0));
  o.window_keep = to_int(args.integer("window-keep", 0), "window-keep");
  const int n = to_int(args.integer("tokens", 500), "tokens");
  if (n < 0) throw Error("--tokens must be >= 0");
  const std::string prompt = args.str("prompt", "");
  sample::Generator gen(trainer->model(), o);
  gen.set_prompt(prompt);
  std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  const auto t0 = Clock::now();
  for (int i = 0; i < n; i++) {
    sample::Token t = gen.next();
    std::fputc(t.byte, stdout);
    if (t.byte == '\n') std::fflush(stdout);
  }
  const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
  std::fflush(stdout);
  std::fprintf(stderr, "\n[%d bytes in %.2f s: %.0f bytes/s]\n", n, dt, dt > 0 ? n / dt : 0.0);
  return 0;
}

// ---- bench ---------------------------------------------------------------------------------

struct BenchConfig {
  const char* name;
  int layers, heads, embd, ctx, batch;
};

int cmd_bench(const Args& args) {
  set_threads(args);
  const int steps = to_int(args.integer("steps", 20), "steps");
  if (steps < 1) throw Error("--steps must be >= 1");
  std::vector<uint8_t> corpus = io::read_file(std::string(TINYGPT_DATA_DIR) + "/tinyshakespeare.txt");
  const BenchConfig all[] = {
      {"tiny", 2, 2, 64, 32, 8},
      {"S", 4, 4, 128, 64, 12},
      {"M", 6, 6, 384, 256, 4},
  };
  const std::string only = args.str("config", "all");
  std::vector<BenchConfig> configs;
  for (const BenchConfig& b : all)
    if (only == "all" || only == b.name) configs.push_back(b);
  if (configs.empty()) throw Error("--config must be tiny, S, M or all");
  std::printf("tinygpt bench: %s kernels, %d thread(s), %d timed steps after 3 warm-up steps\n",
              tinygpt::simd_backend(), tinygpt::num_threads(), steps);
  std::printf("%-32s %10s %12s %10s %14s\n", "config", "params", "train tok/s", "ms/step", "generate B/s");
  for (const BenchConfig& b : configs) {
    model::Config mc;
    mc.n_layer = b.layers, mc.n_head = b.heads, mc.n_embd = b.embd, mc.block_size = b.ctx;
    train::TrainConfig tc;
    tc.batch_size = b.batch;
    tc.steps = steps + 3;
    tc.warmup = 1;
    train::Trainer t(mc, tc);
    t.set_corpus(corpus);
    for (int i = 0; i < 3; i++) t.step();
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; i++) t.step();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    const double tok_s = double(steps) * b.batch * b.ctx / dt;
    // generation: several windows' worth of bytes (default window policy: rebuild every half context)
    sample::Generator gen(t.model(), sample::Options{});
    gen.set_prompt("\n");
    const int n_gen = 4 * b.ctx + 64;
    const auto g0 = Clock::now();
    for (int i = 0; i < n_gen; i++) gen.next();
    const double gdt = std::chrono::duration<double>(Clock::now() - g0).count();
    char name[64];
    std::snprintf(name, sizeof name, "%-4s (%dL %dH %dw ctx%d b%d)", b.name, b.layers, b.heads, b.embd, b.ctx, b.batch);
    std::printf("%-32s %10lld %12.0f %10.2f %14.0f\n", name, (long long)t.model().num_parameters(), tok_s,
                1000.0 * dt / steps, n_gen / gdt);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "train")
      return cmd_train(Args(argc, argv, 2,
                            {"data", "layers", "heads", "embd", "ctx", "batch", "lr", "min-lr", "warmup", "steps",
                             "weight-decay", "clip", "eval-every", "eval-batches", "seed", "threads", "out",
                             "save-every", "resume", "until", "log-every"}));
    if (cmd == "sample")
      return cmd_sample(Args(argc, argv, 2,
                             {"ckpt", "prompt", "tokens", "temperature", "top-k", "top-p", "seed", "window-keep", "threads"}));
    if (cmd == "bench") return cmd_bench(Args(argc, argv, 2, {"threads", "steps", "config"}));
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "unknown command '%s'\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const Error& e) {
    if (std::string(e.what()) == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "tinygpt %s: %s\n", cmd.c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tinygpt %s: out of memory\n", cmd.c_str());
    return 1;
  }
}
