// JSON files Canopy reads (a dump's manifest, the parameters' config file, a collectives tuning
// file): one parse, with errors that name the file and the line.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace canopy {

/** The line (from 1) of @p text that byte @p offset is on. */
size_t line_at(std::string_view text, size_t offset);

/** @p text, the contents of @p path, as a JSON object. Error(PARSE) naming the file and line for
    a syntax error, and line 1 for anything but an object, said as @p expected. */
nlohmann::json parse_json_object(std::string_view text, const std::string &path, const std::string &expected);

}  // namespace canopy
