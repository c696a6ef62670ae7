# ktune_family(NAME
#   [GENERATOR files...]   problem and space part, static model (no CUDA)   -> ktune_generator
#   [RUNTIME files...]     the public call and its launch                   -> ktune_runtime
#   [TUNER files...]       harness and registered part                      -> ktune_tuner
#   [PARTS names...]       each a KTUNE_FAMILY_PART(name, ...) of a TUNER file
#   [MODELS names...]      each a KTUNE_FAMILY_MODEL(name, ...) of a GENERATOR file: a
#                          template's static model (generator/.../family_model.hpp)
#   [API class]            the Runtime base declared in include/ktune/<family>.hpp
#   [LEGACY entries...])   "family|variant|unit": what the family's records of database
#                          schemas 1 and 2 left implied (a key without a variant meant
#                          `variant`; schema 1's rate counted `unit`)
#
# Called from templates/<family>/CMakeLists.txt: adds the folder's files to the layer
# libraries they belong to, so that the layering holds (the runtime carries no tuner
# code; generator and cache build without CUDA) while the family stays in one folder.
# The folder's kernels (*.cuh) are embedded by templates/CMakeLists.txt; its public
# headers (include/ktune/*.hpp) are installed beside ktune.hpp, which includes the
# family's own header <ktune/<family>.hpp> through the generated <ktune/families.hpp>.
# Its Python calls (python/<family>.py, over its C ABI) join the Python package.
function(ktune_family name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "API" "GENERATOR;RUNTIME;TUNER;PARTS;MODELS;LEGACY")
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  list(TRANSFORM arg_GENERATOR PREPEND ${dir}/)
  list(TRANSFORM arg_RUNTIME PREPEND ${dir}/)
  list(TRANSFORM arg_TUNER PREPEND ${dir}/)
  if(arg_GENERATOR)
    target_sources(ktune_generator PRIVATE ${arg_GENERATOR})
  endif()
  if(arg_RUNTIME)
    target_sources(ktune_runtime PRIVATE ${arg_RUNTIME})
  endif()
  if(arg_TUNER)
    target_sources(ktune_tuner PRIVATE ${arg_TUNER})
  endif()
  if(EXISTS ${dir}/include)
    target_include_directories(ktune_generator PUBLIC $<BUILD_INTERFACE:${dir}/include>)
    target_include_directories(ktune_shared PUBLIC $<BUILD_INTERFACE:${dir}/include>)
    file(GLOB headers CONFIGURE_DEPENDS ${dir}/include/ktune/*.hpp ${dir}/include/ktune/*.h)
    install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ktune)
  endif()
  if(arg_API)
    set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_API_HEADERS ${name})
    set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_API_CLASSES ${arg_API})
  endif()
  # Its Python calls (python/<name>.py), into the package's families/ when the Python
  # package is built (pyproject.toml sets KTUNE_PYTHON_FAMILIES_DIR).
  if(KTUNE_PYTHON_FAMILIES_DIR AND EXISTS ${dir}/python/${name}.py)
    install(FILES ${dir}/python/${name}.py DESTINATION ${KTUNE_PYTHON_FAMILIES_DIR})
    set_property(GLOBAL APPEND PROPERTY KTUNE_PYTHON_FAMILIES ${name})
  endif()
  file(GLOB kernels CONFIGURE_DEPENDS ${dir}/*.cuh)
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_KERNELS ${kernels})
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_PARTS ${arg_PARTS})
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_MODELS ${arg_MODELS})
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_LEGACY ${arg_LEGACY})
endfunction()

# True when every family named is in the build (a test of a layer that drives a
# built-in family is left out of a build without it).
function(ktune_has_families out)
  set(${out} TRUE PARENT_SCOPE)
  foreach(f ${ARGN})
    if(NOT f IN_LIST KTUNE_FAMILIES)
      set(${out} FALSE PARENT_SCOPE)
    endif()
  endforeach()
endfunction()
