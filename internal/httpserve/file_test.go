package httpserve

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

func TestFile(t *testing.T) {
	fsys := fstest.MapFS{
		"index.html": {Data: []byte("<p>page</p>")},
		"app.js":     {Data: []byte("let a = 1")},
		"style.css":  {Data: []byte("p{}")},
		"notes.txt":  {Data: []byte("text")},
	}
	for _, c := range []struct {
		name, body, ctype string
		status            int
	}{
		{"index.html", "<p>page</p>", "text/html; charset=utf-8", 200},
		{"app.js", "let a = 1", "text/javascript; charset=utf-8", 200},
		{"style.css", "p{}", "text/css; charset=utf-8", 200},
		{"notes.txt", "text", "text/plain; charset=utf-8", 200},
		{"missing.js", "404 page not found\n", "text/plain; charset=utf-8", 404},
	} {
		w := httptest.NewRecorder()
		FSFile(fsys, c.name)(w, httptest.NewRequest(http.MethodGet, "/"+c.name, nil))
		if w.Code != c.status || w.Body.String() != c.body || w.Header().Get("Content-Type") != c.ctype {
			t.Errorf("%s: %d %q %q, want %d %q %q", c.name, w.Code, w.Header().Get("Content-Type"), w.Body.String(), c.status, c.ctype, c.body)
		}
		if c.status == 200 && w.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: Cache-Control %q, want no-cache", c.name, w.Header().Get("Cache-Control"))
		}
	}
	// FSFile reads the file once, when the handler is made.
	h := FSFile(fsys, "app.js")
	fsys["app.js"].Data = []byte("changed")
	w := httptest.NewRecorder()
	h(w, httptest.NewRequest(http.MethodGet, "/app.js", nil))
	if w.Body.String() != "let a = 1" {
		t.Errorf("served %q after the file changed, want what it held when the handler was made", w.Body.String())
	}
}
