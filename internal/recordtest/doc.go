// Package recordtest plays recorded games for the tests of the recording
// tools (teehist/replay, e2e): an in-process server recording with
// synthetic clients, and the demos twhist makes of its files. Tests only.
package recordtest
