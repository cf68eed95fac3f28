// Package testenv decides what a test does when the environment it needs
// is missing: a binary, a Debian package's files, a private network
// namespace, an X server, a Docker engine. Outside CI the test skips and
// says what is missing; under CI=true (set by .ci/run's machines, which
// install everything) it fails with the cause, so a broken machine cannot
// turn the real-world checks into skips and CI green. Any test may call
// it; it is test support only.
package testenv
