#pragma once
// The program's version (project(VERSION) in CMakeLists.txt): printed by --version, part of a run's identity.
namespace flexadj {

const char* program_version();

}  // namespace flexadj
