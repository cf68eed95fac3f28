//go:build !linux

package metrics

// collectProcess writes nothing: the process_* figures are read from
// /proc, which only Linux has.
func collectProcess(*expo, []byte) {}
