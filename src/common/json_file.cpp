#include "common/json_file.h"

#include <algorithm>

#include "common/error.h"

namespace canopy {

size_t line_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

nlohmann::json parse_json_object(std::string_view text, const std::string &path, const std::string &expected) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 4, column 1: syntax error
    // while parsing value - unexpected '}'; ...": the file and line say where, the rest what.
    std::string why = e.what();
    size_t column = why.find(", column ");
    size_t colon = column == std::string::npos ? std::string::npos : why.find(": ", column);
    if (colon != std::string::npos) why = why.substr(colon + 2);
    throw parse_error(path, line_at(text, e.byte > 0 ? e.byte - 1 : 0), "not valid JSON: " + why);
  }
  if (!object.is_object()) throw parse_error(path, 1, "expected " + expected);
  return object;
}

}  // namespace canopy
