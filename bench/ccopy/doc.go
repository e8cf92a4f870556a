// Package ccopy holds the copies written in C that tilecopy.Copy is
// measured against: glibc's memcpy and a streaming copy that walks eight
// parts of the buffer at once with non-temporal stores, as a C programmer
// would write the machine's fastest copy. Its benchmark (BenchmarkCopy)
// runs them side by side with Go's copy() and tilecopy.Copy in one
// process; it needs cgo and a C compiler, and no test runs it.
//
//	go test -run '^$' -bench Copy -benchtime 20x ./bench/ccopy/
package ccopy
