// The served app's page: report-ui/src/app.html with every file it names
// inlined, embedded at build time (cmake/embed_report_ui.cmake, as the HTML
// report's page is). Built only when the report's libraries were there
// (HEAPQL_HTML_REPORT); else `/` says so.
#pragma once

#include <string_view>

namespace heapql {

bool serve_app_page_built();
std::string_view serve_app_page();

}  // namespace heapql
