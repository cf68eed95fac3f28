// Package observe owns what the game loop tells its side channels (master
// registration, Agones, metrics, econ): the Event values, the server Info
// shown to browsers and masters, and the ordered list of observers
// (Observers) the loop calls with each Event.
//
// Observers are added before the loop runs (Server.Observe) and called
// from the loop goroutine; each must return at once without blocking (hand
// the work to its own goroutine over a bounded channel or an atomic). An
// Info handed out is never modified afterwards. The package imports nothing
// of the loop; package server builds the values and calls Emit.
package observe
