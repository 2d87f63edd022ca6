#include "engine/report/json_measures.h"

namespace heapql {

void write_measure_fields(JsonWriter& w, const Measures& m, bool realloc_known) {
  w.field("so", m.so).field("soc", m.soc).field("st", m.st).field("stc", m.stc);
  w.key("src");
  if (realloc_known) {
    w.value(m.src);
  } else {
    w.null();
  }
}

}  // namespace heapql
