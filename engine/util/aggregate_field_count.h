// How many fields an aggregate has, found at compile time: the most
// initializers it accepts, each one of a type that converts to any field's
// type. What a table listing a struct's fields compares itself with, so that
// a field added to the struct and not to the table fails the build.
// A base class counts as one field; a C array field, once per element
// (brace elision).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace heapql {

namespace aggregate_field_count_detail {

// Converts to whatever a field is (declared only: used unevaluated).
struct AnyField {
  template <class T>
  operator T() const;
};

template <class T, std::size_t... I>
constexpr bool initializable_with(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyField{})...}; };
}

template <class T, std::size_t N>
constexpr std::size_t count_from() {
  if constexpr (!initializable_with<T>(std::make_index_sequence<N + 1>())) {
    return N;
  } else {
    return count_from<T, N + 1>();
  }
}

}  // namespace aggregate_field_count_detail

template <class T>
  requires std::is_aggregate_v<T>
constexpr std::size_t aggregate_field_count() {
  return aggregate_field_count_detail::count_from<T, 0>();
}

}  // namespace heapql
