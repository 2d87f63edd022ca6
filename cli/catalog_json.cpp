#include "cli/catalog_json.h"

#include "engine/report/json_writer.h"
#include "engine/report/reports.h"

namespace heapql::cli {

namespace {

void write_strings(JsonWriter& w, std::string_view name, const std::vector<std::string>& values) {
  w.key(name).begin_array();
  for (const std::string& value : values) w.value(value);
  w.end_array();
}

}  // namespace

std::string command_options_json(std::string_view command, const std::vector<lua::OptionDescription>& options,
                                 const std::vector<std::string>& cull_lists,
                                 const std::vector<std::string>& suppression_lists) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("heapql", kJsonSchemaVersion);
  w.field("command", command);
  w.key("options").begin_array();
  for (const lua::OptionDescription& o : options) {
    w.begin_object();
    w.field("option", o.option);
    write_strings(w, "aliases", o.aliases);
    w.field("field", o.field);
    w.field("value", o.value);
    w.field("repeatable", o.repeatable);
    w.field("flag", !o.value.has_value());
    w.field("help", o.help);
    w.field("doc", o.doc);
    if (!o.choices.empty()) write_strings(w, "choices", o.choices);
    w.field("default", o.default_value);
    w.field("group", o.group);
    w.end_object();
  }
  w.end_array();
  write_strings(w, "cull_lists", cull_lists);
  write_strings(w, "suppression_lists", suppression_lists);
  w.end_object();
  out.push_back('\n');
  return out;
}

std::string recipes_json(const std::vector<ListedRecipe>& recipes) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("heapql", kJsonSchemaVersion);
  w.key("recipes").begin_array();
  for (const ListedRecipe& recipe : recipes) {
    w.begin_object();
    w.field("name", recipe.name);
    w.field("file", recipe.file);
    if (!recipe.info) {
      w.field("error", recipe.error);
      w.end_object();
      continue;
    }
    w.field("doc", recipe.info->doc);
    w.key("params").begin_array();
    for (const lua::RecipeParam& p : recipe.info->params) {
      w.begin_object();
      w.field("name", p.name);
      w.field("type", p.type);
      w.field("default", p.default_value);
      w.field("doc", p.doc);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace heapql::cli
