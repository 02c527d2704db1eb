// Package static embeds Loreweave's CSS, scripts and vendored browser libraries, and names
// each file with a content hash so it can be cached forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// Files holds every asset, served under /static/; schemas/ is also served under /schemas/.
//
//go:embed app.css favicon.svg js schemas vendor
var Files embed.FS

var (
	hashOnce sync.Once
	hashes   map[string]string
)

// URL returns the public URL of an asset with a content-hash query string, e.g.
// "/static/app.css?v=3f9a1c2b". Unknown names get no hash.
func URL(name string) string {
	hashOnce.Do(func() {
		hashes = map[string]string{}
		_ = fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := Files.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			hashes[path] = hex.EncodeToString(sum[:4])
			return nil
		})
	})
	if h, ok := hashes[name]; ok {
		return "/static/" + name + "?v=" + h
	}
	return "/static/" + name
}
