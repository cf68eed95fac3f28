// Package doccheck checks the relative links of the project's Markdown
// documentation (README.md, CONTRIBUTING.md, docs/*.md): every link to a
// file must name a file that exists, and every #anchor must name a heading
// of its page, by GitHub's anchor rules. It owns only that check; its test
// runs it on the repository, so a moved page or a renamed heading fails
// `go test ./...`. Nothing outside tests calls it.
package doccheck
