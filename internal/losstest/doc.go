// Package losstest holds the loss and jitter measurement of docs/reliability.md "Loss and
// jitter" as a test (TestLossProfiles): 32 load clients (package
// loadclient) with impaired sockets against an in-process twserver. It is
// a package of its own so that its minutes count against their own test
// timeout, not against cmd/twload's full-load runs.
//
// Its check.go (Binomial, CheckLink) is what proves that an impairment
// happened as asked; the loss profiles here and the real client's run
// through the lossy proxy (package e2e) call it. It is test support only.
package losstest
