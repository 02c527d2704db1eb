package api

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	_ "image/gif"  // image.DecodeConfig reads GIF sizes
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"net/http"
	"strings"

	_ "golang.org/x/image/webp" // and WebP

	"github.com/loreweave/loreweave/app/store"
)

// fileType is what an upload's bytes are, whatever its name says.
type fileType struct {
	kind        string // store.AssetImage or store.AssetModel; "" when refused
	contentType string
	ext         string
}

// sniffHead is how many leading bytes decide an upload's type.
const sniffHead = 512

// sniff types an upload by its first bytes. Types we do not take come back with kind "" and
// the type Go's content sniffing sees (SVG is named as such: it can carry script, so it is
// refused).
func sniff(head []byte) fileType {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return fileType{store.AssetImage, "image/png", ".png"}
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return fileType{store.AssetImage, "image/jpeg", ".jpg"}
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return fileType{store.AssetImage, "image/gif", ".gif"}
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return fileType{store.AssetImage, "image/webp", ".webp"}
	case bytes.HasPrefix(head, []byte("glTF")):
		return fileType{store.AssetModel, "model/gltf-binary", ".glb"}
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if bytes.HasPrefix(trimmed, []byte("{")) {
		return fileType{store.AssetModel, "model/gltf+json", ".gltf"}
	}
	if bytes.Contains(bytes.ToLower(head), []byte("<svg")) {
		return fileType{contentType: "image/svg+xml"}
	}
	return fileType{contentType: http.DetectContentType(head)}
}

// inspect checks that the whole file is what sniff said, and reads an image's size from it.
// It returns a sentence saying what is wrong, or "".
func (t fileType) inspect(data []byte) (width, height int, problem string) {
	switch t.contentType {
	case "model/gltf-binary":
		// 12-byte header: magic, version 2, total length.
		if len(data) < 12 || binary.LittleEndian.Uint32(data[4:8]) != 2 {
			return 0, 0, "the file starts like a .glb but is not glTF 2.0 binary"
		}
		if int(binary.LittleEndian.Uint32(data[8:12])) != len(data) {
			return 0, 0, "the .glb header's length does not match the file's size (truncated or corrupt)"
		}
		return 0, 0, ""
	case "model/gltf+json":
		var doc struct {
			Asset *struct {
				Version string `json:"version"`
			} `json:"asset"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return 0, 0, "the file is not JSON, so not a .gltf: " + err.Error()
		}
		if doc.Asset == nil || strings.TrimSpace(doc.Asset.Version) == "" {
			return 0, 0, "the JSON has no asset.version, so it is not a .gltf"
		}
		return 0, 0, ""
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return 0, 0, "the file starts like " + t.contentType + " but its header cannot be read"
	}
	return cfg.Width, cfg.Height, ""
}
