#pragma once
// The program's version (project(VERSION) in CMakeLists.txt) and build: printed by --version, part of a run's identity.
namespace flexadj {

const char* program_version();
// `git describe --always --dirty` of the source tree at build time (cmake/build_commit.cmake); the version outside
// a git checkout.
const char* program_commit();
// "0.1.0 (git 3748796)", or "0.1.0" when the commit is unknown: what identifies the program in a run's identity.
const char* program_build();

}  // namespace flexadj
