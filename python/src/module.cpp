// The teval Python module (imported as teval._teval; teval/__init__.py is
// the public face): the public C++ API with numpy arrays in and out.
#include "python/src/convert.h"

#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <map>
#include <optional>
#include <string>

namespace teval::python {
namespace {

Engine engine_named(const std::string& name) {
  if (name == "interp")
    return Engine::Interpreter;
  if (name == "ireval")
    return Engine::IREval;
  if (name == "jit")
    return Engine::Jit;
  if (name == "exact")
    return Engine::Exact;
  throw py::value_error("unknown engine '" + name +
                        "'; the engines are interp, ireval, jit, exact");
}

Notation notation_named(const std::string& name) {
  if (name == "detect")
    return Notation::Detect;
  if (name == "antares")
    return Notation::Antares;
  if (name == "tile")
    return Notation::Tile;
  if (name == "mlir")
    return Notation::Mlir;
  throw py::value_error("unknown notation '" + name +
                        "'; the notations are detect, antares, tile, mlir");
}

// Tile parameters: an int, or a list of ints.
void add_params(LoadOptions& o, const std::optional<py::dict>& params) {
  if (!params)
    return;
  for (auto [key, value] : *params) {
    std::string name = py::str(key);
    if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value))
      o.ints[name] = value.cast<int64_t>();
    else if (py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value))
      o.int_lists[name] = value.cast<std::vector<int64_t>>();
    else
      throw py::type_error("parameter '" + name + "' must be an int or a list of ints");
  }
}

// Types of undeclared inputs: from an array (anything numpy.asarray takes)
// or a (dtype, shape) pair.
void add_types(LoadOptions& o, const std::optional<py::dict>& inputs) {
  if (!inputs)
    return;
  for (auto [key, value] : *inputs) {
    std::string name = py::str(key);
    if (py::isinstance<py::tuple>(value) && py::len(value) == 2 &&
        py::isinstance<py::str>(value.cast<py::tuple>()[0])) {
      auto pair = value.cast<std::pair<std::string, std::vector<int64_t>>>();
      o.inputs[name] = {dtype_named(pair.first), pair.second};
      continue;
    }
    InputArray a = input_array(value);
    o.inputs[name] = {a.ref.dtype, a.ref.shape};
  }
}

LoadOptions load_options(const std::string& notation, const std::string& name,
                         const std::optional<std::string>& entry,
                         const std::optional<py::dict>& params,
                         const std::optional<py::dict>& inputs,
                         const std::optional<std::vector<std::string>>& values,
                         const std::optional<std::vector<std::string>>& given) {
  LoadOptions o;
  o.notation = notation_named(notation);
  o.name = name;
  if (entry)
    o.entry = *entry;
  add_params(o, params);
  add_types(o, inputs);
  if (values)
    o.values = *values;
  if (given)
    o.given = *given;
  return o;
}

// The program's inputs from a dict of arrays, each with the dtype the
// program declares; with a seed, the ones not given are drawn.
struct Inputs {
  std::vector<InputArray> arrays; // keeps what the references point into
  std::map<std::string, Tensor> drawn;
  std::map<std::string, TensorRef> refs;
};

Inputs named_inputs(const Program& p, const std::optional<py::dict>& given,
                    std::optional<uint64_t> seed) {
  Inputs in;
  if (given)
    for (auto [key, value] : *given) {
      in.arrays.push_back(input_array(value));
      in.refs.emplace(py::str(key), in.arrays.back().ref);
    }
  if (seed) {
    in.drawn = p.random_inputs(*seed);
    for (const auto& [name, t] : in.drawn)
      in.refs.emplace(name, t.ref()); // a given input wins
  }
  return in;
}

// While a program runs on the main thread with Python's own SIGINT handler
// in place, Ctrl-C stops it and raises KeyboardInterrupt, as it would stop
// Python code; elsewhere (other threads, a handler of the caller's) nothing
// changes.
std::atomic<StopToken*> g_sigint_stop{nullptr};
volatile std::sig_atomic_t g_sigint_seen = 0;

extern "C" void on_sigint(int) {
  g_sigint_seen = 1;
  if (StopToken* stop = g_sigint_stop.load())
    stop->request();
}

class CtrlCStops {
public:
  explicit CtrlCStops(StopToken& stop) {
    py::module_ threading = py::module_::import("threading");
    py::module_ signal = py::module_::import("signal");
    if (!threading.attr("current_thread")().is(threading.attr("main_thread")()) ||
        !signal.attr("getsignal")(signal.attr("SIGINT")).is(signal.attr("default_int_handler")))
      return;
    g_sigint_seen = 0;
    g_sigint_stop = &stop;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~CtrlCStops() {
    if (!installed_)
      return;
    sigaction(SIGINT, &previous_, nullptr);
    g_sigint_stop = nullptr;
  }
  CtrlCStops(const CtrlCStops&) = delete;
  CtrlCStops& operator=(const CtrlCStops&) = delete;
  /// Whether a Ctrl-C came while installed.
  bool pressed() const { return installed_ && g_sigint_seen; }

private:
  bool installed_ = false;
  struct sigaction previous_ {};
};

[[noreturn]] void raise_keyboard_interrupt() {
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

// Runs \p work (which takes the stop token) with the GIL released and
// Ctrl-C stopping it: a Ctrl-C raises KeyboardInterrupt, whether it stopped
// the evaluation or came as it ended.
template <class Work> auto interruptible(Work work) {
  StopToken stop;
  CtrlCStops ctrl_c(stop);
  try {
    auto result = [&] {
      py::gil_scoped_release release;
      return work(&stop);
    }();
    if (ctrl_c.pressed())
      raise_keyboard_interrupt();
    return result;
  } catch (const Error&) {
    if (ctrl_c.pressed())
      raise_keyboard_interrupt();
    throw;
  }
}

py::dict output_dict(std::map<std::string, Tensor> tensors) {
  py::dict out;
  for (auto& [name, t] : tensors)
    out[py::str(name)] = output_array(std::move(t));
  return out;
}

py::dict run_program(const Program& p, const std::optional<py::dict>& inputs,
                     const std::string& engine, std::optional<uint64_t> seed,
                     std::optional<double> timeout, int threads, const std::string& order, bool fma,
                     const std::optional<py::dict>& out) {
  if (threads < 0)
    throw std::invalid_argument("threads must be 0 (every core) or more");
  if (order != "sequential" && order != "any")
    throw py::value_error("order must be \"sequential\" or \"any\", not \"" + order + "\"");
  RunOptions options{engine_named(engine), timeout.value_or(0)};
  options.threads = threads;
  options.order = order == "any" ? RunOptions::Order::Any : RunOptions::Order::Sequential;
  options.fma = fma;
  Inputs in = named_inputs(p, inputs, seed);
  if (!out)
    return output_dict(interruptible([&](StopToken* stop) {
      options.stop = stop;
      return p.run(in.refs, options);
    }));
  // The given arrays are written and returned with the other outputs.
  std::map<std::string, OutArray> arrays;
  std::map<std::string, TensorOut> into;
  for (auto [key, value] : *out) {
    std::string name = py::str(key);
    OutArray a = out_array(name, value);
    into.emplace(name, a.out);
    arrays.emplace(name, std::move(a));
  }
  std::map<std::string, Tensor> rest = interruptible([&](StopToken* stop) {
    options.stop = stop;
    return p.run_into(in.refs, into, options);
  });
  // Every output by name, as run() gives them: the given arrays themselves.
  std::map<std::string, py::object> all;
  for (auto& [name, t] : rest)
    all[name] = output_array(std::move(t));
  for (const auto& [name, a] : arrays)
    all[name] = a.array;
  py::dict result;
  for (auto& [name, value] : all)
    result[py::str(name)] = value;
  return result;
}

CheckOptions check_options(std::optional<int64_t> ulp, std::optional<double> rtol,
                           std::optional<double> atol, bool fma, std::optional<double> timeout,
                           const py::object& math_ulp, bool excess_precision) {
  CheckOptions o;
  o.fma = fma;
  o.excess_precision = excess_precision;
  // math_ulp: N for every math function, or {name: N}.
  auto count = [](const py::handle& v) {
    if (!py::isinstance<py::int_>(v) || v.cast<int64_t>() < 0)
      throw py::value_error("math_ulp takes a non-negative integer, or a dict of them");
    return v.cast<int64_t>();
  };
  if (py::isinstance<py::dict>(math_ulp)) {
    for (auto [name, n] : math_ulp.cast<py::dict>())
      o.function_ulp[py::str(name)] = count(n);
  } else if (!math_ulp.is_none()) {
    o.math_ulp = count(math_ulp);
  }
  o.timeout = timeout.value_or(0);
  if (ulp && (rtol || atol))
    throw py::value_error("give ulp, or rtol and atol, not both");
  if (ulp) {
    if (*ulp < 0)
      throw py::value_error("ulp must not be negative");
    o.rule = CheckOptions::Rule::Ulp;
    o.ulps = *ulp;
  } else if (rtol || atol) {
    o.rule = CheckOptions::Rule::Tolerance;
    o.rtol = rtol.value_or(0);
    o.atol = atol.value_or(0);
    if (!(o.rtol >= 0) || !(o.atol >= 0))
      throw py::value_error("rtol and atol must be non-negative numbers");
  }
  return o;
}

py::dict check_program(const Program& p, const std::optional<py::dict>& inputs,
                       const py::dict& candidates, std::optional<uint64_t> seed,
                       const CheckOptions& options) {
  Inputs in = named_inputs(p, inputs, seed);
  std::vector<InputArray> arrays;
  std::map<std::string, TensorRef> refs;
  for (auto [key, value] : candidates) {
    arrays.push_back(input_array(value));
    refs.emplace(py::str(key), arrays.back().ref);
  }
  std::vector<Verdict> verdicts = interruptible([&](StopToken* stop) {
    CheckOptions o = options;
    o.stop = stop;
    return p.check(in.refs, refs, o);
  });
  py::dict out;
  for (Verdict& v : verdicts)
    out[py::str(v.name)] = std::move(v);
  return out;
}

std::string status_name(Verdict::Status s) {
  switch (s) {
  case Verdict::Status::Exact:
    return "exact";
  case Verdict::Status::WithinBound:
    return "within-bound";
  case Verdict::Status::Mismatch:
    return "mismatch";
  case Verdict::Status::Inconclusive:
    return "inconclusive";
  }
  return "";
}

std::string info_repr(const TensorInfo& i) {
  std::string s =
      "TensorInfo(name='" + i.name + "', dtype='" + std::string(name(i.dtype)) + "', shape=(";
  for (size_t d = 0; d < i.shape.size(); ++d)
    s += std::to_string(i.shape[d]) + (i.shape.size() == 1      ? ","
                                       : d + 1 < i.shape.size() ? ", "
                                                                : "");
  return s + "))";
}

py::tuple shape_tuple(const std::vector<int64_t>& shape) {
  py::tuple t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    t[d] = shape[d];
  return t;
}

void bind_error(py::module_& m) {
  // Held for the life of the process, past the module's.
  static py::handle error = py::exception<Error>(m, "Error").release();
  error.attr("__doc__") =
      "A wrong program or wrong inputs. str() is the clang-style text teval prints; "
      ".file, .line, .column and .message locate the error, .diagnostics lists it "
      "with its notes as (file, line, column, message) tuples.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object value = error(e.rendered());
      const Diagnostic& d = e.error();
      value.attr("file") = d.file;
      value.attr("line") = d.line;
      value.attr("column") = d.column;
      value.attr("message") = d.message;
      py::list all;
      for (const Diagnostic& n : e.diagnostics())
        all.append(py::make_tuple(n.file, n.line, n.column, n.message));
      value.attr("diagnostics") = all;
      PyErr_SetObject(error.ptr(), value.ptr());
    }
  });
}

} // namespace

PYBIND11_MODULE(_teval, m) {
  m.doc() = "teval: the meaning of tensor index notations, evaluated exactly";
  bind_error(m);

  py::class_<TensorInfo>(m, "TensorInfo", "A program's input or output: name, dtype, shape.")
      .def_property_readonly("name", [](const TensorInfo& i) { return i.name; })
      .def_property_readonly("dtype",
                             [](const TensorInfo& i) { return std::string(name(i.dtype)); })
      .def_property_readonly("shape", [](const TensorInfo& i) { return shape_tuple(i.shape); })
      .def("__repr__", info_repr);

  py::class_<Verdict>(m, "Verdict", "The oracle's verdict on one candidate output.")
      .def_property_readonly("name", [](const Verdict& v) { return v.name; })
      .def_property_readonly("status", [](const Verdict& v) { return status_name(v.status); })
      .def_property_readonly("kind", [](const Verdict& v) { return v.kind; })
      .def_property_readonly("text", [](const Verdict& v) { return v.text; })
      .def_property_readonly("elements", [](const Verdict& v) { return v.elements; })
      .def_property_readonly("mismatches", [](const Verdict& v) { return v.mismatches; })
      .def_property_readonly("unbounded", [](const Verdict& v) { return v.unbounded; })
      .def_property_readonly("inconclusive", [](const Verdict& v) { return v.inconclusive; })
      .def_property_readonly("max_ulps", [](const Verdict& v) { return v.max_ulps; })
      .def_property_readonly("max_fraction", [](const Verdict& v) { return v.max_fraction; })
      .def_property_readonly("worst_index",
                             [](const Verdict& v) { return shape_tuple(v.worst_index); })
      .def_property_readonly("passed", &Verdict::passed)
      .def("__bool__", &Verdict::passed)
      .def("__str__", [](const Verdict& v) { return v.text; })
      .def("__repr__", [](const Verdict& v) {
        return "<teval.Verdict " + v.name + ": " + status_name(v.status) + ">";
      });

  py::class_<Program>(m, "Program")
      .def(py::init([](std::string text, const std::string& notation, const std::string& name,
                       const std::optional<std::string>& entry,
                       const std::optional<py::dict>& params, const std::optional<py::dict>& inputs,
                       const std::optional<std::vector<std::string>>& values,
                       const std::optional<std::vector<std::string>>& given) {
             return Program::load(std::move(text), load_options(notation, name, entry, params,
                                                                inputs, values, given));
           }),
           py::arg("text"), py::kw_only(), py::arg("notation") = "detect",
           py::arg("name") = "<program>", py::arg("entry") = py::none(),
           py::arg("params") = py::none(), py::arg("inputs") = py::none(),
           py::arg("values") = py::none(), py::arg("given") = py::none())
      .def_property_readonly("inputs", &Program::inputs)
      .def_property_readonly("outputs", &Program::outputs)
      .def("run", &run_program, py::arg("inputs") = py::none(), py::kw_only(),
           py::arg("engine") = "interp", py::arg("seed") = py::none(),
           py::arg("timeout") = py::none(), py::arg("threads") = 1, py::arg("order") = "sequential",
           py::arg("fma") = false, py::arg("out") = py::none())
      .def(
          "check",
          [](const Program& p, const std::optional<py::dict>& inputs, const py::dict& candidates,
             std::optional<uint64_t> seed, std::optional<int64_t> ulp, std::optional<double> rtol,
             std::optional<double> atol, bool fma, std::optional<double> timeout,
             const py::object& math_ulp, bool excess_precision) {
            return check_program(
                p, inputs, candidates, seed,
                check_options(ulp, rtol, atol, fma, timeout, math_ulp, excess_precision));
          },
          py::arg("inputs"), py::arg("candidates"), py::kw_only(), py::arg("seed") = py::none(),
          py::arg("ulp") = py::none(), py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
          py::arg("fma") = false, py::arg("timeout") = py::none(), py::arg("math_ulp") = py::none(),
          py::arg("excess_precision") = false)
      .def(
          "random_inputs",
          [](const Program& p, uint64_t seed) { return output_dict(p.random_inputs(seed)); },
          py::arg("seed"))
      .def("lower", &Program::lower)
      .def("jit_llvm", &Program::jit_llvm)
      .def("jit_asm", &Program::jit_asm);
}

} // namespace teval::python
