package httpserve

import (
	"io/fs"
	"net/http"
	"path"
)

// File serves b as the file name: its type by name's extension (ContentType)
// and Cache-Control: no-cache, so a page and its scripts change together
// when the binary does. The project's pages, scripts and styles are served
// this way, from memory.
func File(name string, b []byte) http.HandlerFunc {
	ct := ContentType(name)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	}
}

// FSFile serves the file name of fsys as File does, read once now; a file
// fsys does not have answers 404 (a handler for it is a mistake the tests
// of the page find).
func FSFile(fsys fs.FS, name string) http.HandlerFunc {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return http.NotFound
	}
	return File(name, b)
}

// ContentType is the type of a served file by its name's extension: HTML,
// JavaScript or CSS in UTF-8, plain text otherwise.
func ContentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}
