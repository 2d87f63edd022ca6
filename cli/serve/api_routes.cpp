#include "cli/serve/api_routes.h"

#include <fmt/format.h>
#include <httplib.h>

#include <set>
#include <string_view>

#include "engine/report/json_writer.h"
#include "engine/file_base_name.h"
#include "cli/exit_codes.h"
#include "cli/serve/app_page.h"
#include "lua/host/run_limits.h"

namespace heapql::cli {

namespace {

constexpr std::string_view kJson = "application/json; charset=utf-8";
// The report page's policy (report-ui/src/page.html), plus fetching from
// this server, and no framing by other sites.
constexpr std::string_view kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'; connect-src 'self'; frame-ancestors 'none'";
constexpr std::string_view kApiPolicy = "default-src 'none'; frame-ancestors 'none'";

void set_security_headers(httplib::Response& res, std::string_view policy) {
  res.set_header("Content-Security-Policy", std::string(policy));
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-store");
  res.set_header("Referrer-Policy", "no-referrer");
}

std::string error_json(std::string_view message, std::optional<int> exit_code = std::nullopt) {
  std::string body = "{\"error\":";
  append_json_string(body, message);
  if (exit_code) body += fmt::format(",\"exit\":{}", *exit_code);
  body += "}\n";
  return body;
}

void answer(httplib::Response& res, int status, std::string body, std::string_view type = kJson) {
  res.status = status;
  set_security_headers(res, kApiPolicy);
  res.set_content(std::move(body), std::string(type).c_str());
}

void refuse(httplib::Response& res, const ApiRefusal& refusal) {
  answer(res, refusal.status, error_json(refusal.message));
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

const ServedTrace* trace_of(const ServeState& state, const std::string& key) {
  for (const ServedTrace& trace : state.traces) {
    if (trace.key == key) return &trace;
  }
  return nullptr;
}

const ServedTrace& served_trace(const ServeState& state, const Parameters& parameters, std::string_view name) {
  const std::string key = parameter(parameters, name);
  if (key.empty()) throw ApiRefusal{400, fmt::format("parameter '{}' is needed: a trace's key (/api/traces)", name)};
  const ServedTrace* trace = trace_of(state, key);
  if (trace == nullptr) throw ApiRefusal{404, fmt::format("no served trace '{}' (/api/traces lists them)", key)};
  return *trace;
}

const std::vector<lua::AcceptedOption>& accepted_by(const ServeState& state, std::string_view command) {
  return state.accepted.find(command)->second;
}

// Runs `words` in a worker for the request and answers with what it printed
// (`type`), or its error.
void relay(ServeState& state, const httplib::Request& req, httplib::Response& res, const Parameters& parameters,
           std::vector<std::string> words, std::string_view type = kJson) {
  const std::string command = words.front();  // a copy: words grows below
  // `run` and `list` run recipes, under the limits their --timeout and
  // --memory arm; around any other command the worker arms the same limits.
  const bool arms_own_limits = command == "run" || command == "list";
  if (arms_own_limits) words.insert(words.end(), state.limit_words.begin(), state.limit_words.end());
  const std::string token = RequestGuard::token_of(req, parameters);
  const std::string view = parameter(parameters, "view");
  const ViewCancellation::Ticket ticket = state.views.begin(token, view);
  const WorkerOutcome outcome =
      state.workers.run(words, !arms_own_limits, fmt::format("heapql {}: ", command), *ticket);
  state.views.end(token, view, ticket);
  const WorkerLimits& limits = state.workers.limits();
  switch (outcome.end) {
    case WorkerOutcome::End::kExited:
      if (outcome.exit_code == kExitOk) {
        answer(res, 200, outcome.out, type);
      } else {
        answer(res, 400, error_json(trimmed(outcome.err), outcome.exit_code));
      }
      break;
    case WorkerOutcome::End::kSignaled: {
      std::string message = trimmed(outcome.err);
      if (message.empty()) message = fmt::format("heapql {}: the worker died of signal {}", command, outcome.signal);
      answer(res, 500, error_json(message, 128 + outcome.signal));
      break;
    }
    case WorkerOutcome::End::kTimedOut:
      answer(res, 400,
             error_json(fmt::format("heapql {}: the request ran longer than its time limit of {} (--timeout)",
                                    command, lua::describe_timeout(limits.timeout)),
                        kExitBadQuery));
      break;
    case WorkerOutcome::End::kCancelled: answer(res, 409, error_json("superseded")); break;
    case WorkerOutcome::End::kStopping: answer(res, 503, error_json("heapql serve is stopping")); break;
    case WorkerOutcome::End::kTooLarge:
      answer(res, 503,
             error_json(fmt::format("heapql {}: the answer is larger than the memory limit of {} (--memory)", command,
                                    lua::describe_memory(limits.memory_bytes))));
      break;
  }
  res.set_header("Server-Timing", fmt::format("engine;dur={:.1f}", outcome.wall_ms));
}

std::string traces_json(const ServeState& state) {
  const std::lock_guard lock(state.summaries_mutex);
  std::string body = "{\"traces\":[";
  for (const ServedTrace& trace : state.traces) {
    if (&trace != &state.traces.front()) body += ',';
    body += "{\"key\":";
    append_json_string(body, trace.key);
    body += ",\"path\":";
    append_json_string(body, trace.path);
    body += ",\"name\":";
    append_json_string(body, file_base_name(trace.path));
    body += ",\"info\":";
    body += trimmed(trace.info_json);
    body += '}';
  }
  body += "]}\n";
  return body;
}

// A handler whose ApiRefusal becomes its answer.
template <class Handle>
httplib::Server::Handler refusing(Handle handle) {
  return [handle](const httplib::Request& req, httplib::Response& res) {
    const Parameters parameters = parameters_in_order(req.target);
    try {
      handle(req, res, parameters);
    } catch (const ApiRefusal& refusal) {
      refuse(res, refusal);
    }
  };
}

}  // namespace

void add_routes(httplib::Server& server, ServeState& state) {
  // Every request is checked first, whatever its method or path.
  server.set_pre_routing_handler([&state](const httplib::Request& req, httplib::Response& res) {
    const Parameters parameters = parameters_in_order(req.target);
    if (const std::optional<ApiRefusal> refusal = state.guard.check(req, parameters)) {
      refuse(res, *refusal);
      if (refusal->status == 405) res.set_header("Allow", "GET, HEAD");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  server.Get("/", refusing([](const httplib::Request&, httplib::Response& res, const Parameters& parameters) {
    if (!serve_app_page_built()) {
      answer(res, 503, "this heapql was built without the app's page (its report-ui libraries were missing)\n",
             "text/plain; charset=utf-8");
      return;
    }
    res.status = 200;
    set_security_headers(res, kPagePolicy);
    res.set_content(std::string(serve_app_page()), "text/html; charset=utf-8");
    // Loaded with its token in the URL: later requests may carry it as a
    // cookie that no other site's page can send (SameSite=Strict).
    const std::string token = parameter(parameters, "token");
    if (!token.empty()) {
      res.set_header("Set-Cookie", "heapql_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
    }
  }));

  server.Get("/api/traces", refusing([&state](const httplib::Request&, httplib::Response& res, const Parameters&) {
    answer(res, 200, traces_json(state));
    res.set_header("Server-Timing", "engine;dur=0");  // answered at start
  }));

  server.Get("/api/schema", refusing([&state](const httplib::Request& req, httplib::Response& res,
                                                     const Parameters& parameters) {
    relay(state, req, res, parameters, {"help", "query", "--format", "json"});
  }));

  server.Get("/api/recipes", refusing([&state](const httplib::Request& req, httplib::Response& res,
                                                      const Parameters& parameters) {
    std::vector<std::string> words = {"list", "--format", "json"};
    if (!state.recipes_dir.empty()) words.insert(words.end(), {"--recipes", state.recipes_dir});
    relay(state, req, res, parameters, std::move(words));
  }));

  const auto query_like = [&state](std::string_view format, std::string_view type) {
    return refusing([&state, format, type](const httplib::Request& req, httplib::Response& res,
                                                  const Parameters& parameters) {
      const ServedTrace& trace = served_trace(state, parameters, "trace");
      std::vector<std::string> words = {"query", trace.path, "--format", std::string(format)};
      words.insert(words.end(), state.reading_words.begin(), state.reading_words.end());
      for (std::string& word : option_words(accepted_by(state, "query"), parameters, {"token", "view", "trace"},
                                            state.lists)) {
        words.push_back(std::move(word));
      }
      relay(state, req, res, parameters, std::move(words), type);
    });
  };
  server.Get("/api/query", query_like("json", kJson));
  server.Get("/api/recipe", query_like("recipe", "text/x-lua; charset=utf-8"));

  server.Get("/api/diff", refusing([&state](const httplib::Request& req, httplib::Response& res,
                                                   const Parameters& parameters) {
    const ServedTrace& a = served_trace(state, parameters, "a");
    std::vector<std::string> words = {"diff", a.path};
    // Without b, two windows of one trace: heapql diff TRACE --window-a A --window-b B.
    if (!parameter(parameters, "b").empty()) words.push_back(served_trace(state, parameters, "b").path);
    words.insert(words.end(), {"--format", "json"});
    words.insert(words.end(), state.reading_words.begin(), state.reading_words.end());
    for (std::string& word :
         option_words(accepted_by(state, "diff"), parameters, {"token", "view", "a", "b"}, state.lists)) {
      words.push_back(std::move(word));
    }
    relay(state, req, res, parameters, std::move(words));
  }));

  server.Get("/api/run", refusing([&state](const httplib::Request& req, httplib::Response& res,
                                                  const Parameters& parameters) {
    const ServedTrace& trace = served_trace(state, parameters, "trace");
    const std::string name = parameter(parameters, "recipe");
    const ServedRecipe* recipe = state.lists.recipe(name);
    if (recipe == nullptr) {
      throw ApiRefusal{404, fmt::format("no served recipe '{}' (served: {})", name, state.lists.recipe_names())};
    }
    for (const auto& [parameter_name, value] : parameters) {
      if (parameter_name != "param") continue;
      const std::string param = value.substr(0, value.find('='));
      for (const std::string& path_param : recipe->path_params) {
        if (param == path_param) {
          throw ApiRefusal{400, fmt::format("param '{}' names a file: refused (a request names no file)", param)};
        }
      }
    }
    std::vector<std::string> words = {"run", recipe->file, trace.path, "--format", "json"};
    words.insert(words.end(), state.reading_words.begin(), state.reading_words.end());
    for (std::string& word : option_words(accepted_by(state, "run"), parameters, {"token", "view", "trace", "recipe"},
                                          state.lists)) {
      words.push_back(std::move(word));
    }
    relay(state, req, res, parameters, std::move(words));
  }));

  // Anything else, of any path.
  server.Get(".*", [](const httplib::Request&, httplib::Response& res) {
    answer(res, 404, error_json("not found (docs/serve.md lists the API)"));
  });
}

}  // namespace heapql::cli
