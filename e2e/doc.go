// Package e2e holds end-to-end tests: twserver against the real Teeworlds 0.7.5
// client running headless under Xvfb inside a private network namespace.
package e2e
