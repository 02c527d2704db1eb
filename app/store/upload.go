package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"image"
	_ "image/gif"  // image.DecodeConfig reads GIF sizes
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // and WebP

	"github.com/loreweave/loreweave/app/apierr"
)

// fileType is what an upload's bytes are, whatever its name says.
type fileType struct {
	kind        string // AssetImage or AssetModel; "" when refused
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
		return fileType{AssetImage, "image/png", ".png"}
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return fileType{AssetImage, "image/jpeg", ".jpg"}
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return fileType{AssetImage, "image/gif", ".gif"}
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return fileType{AssetImage, "image/webp", ".webp"}
	case bytes.HasPrefix(head, []byte("glTF")):
		return fileType{AssetModel, "model/gltf-binary", ".glb"}
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if bytes.HasPrefix(trimmed, []byte("{")) {
		return fileType{AssetModel, "model/gltf+json", ".gltf"}
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

// UploadLimits bound one uploaded file by its kind, in bytes.
type UploadLimits struct{ Image, Model int }

func (l UploadLimits) of(kind string) int {
	if kind == AssetModel {
		return l.Model
	}
	return l.Image
}

// uploadOverhead is what a multipart body may carry beside the file (boundaries, headers).
const uploadOverhead = 1 << 20

// ReadUpload reads the file of a multipart/form-data request (field "file"), types it by its
// content and checks its size and contents: the one upload path of the REST API and the web
// app. The result is ready for CreateAsset once the world and uploader are set.
func ReadUpload(w http.ResponseWriter, r *http.Request, limits UploadLimits) (NewAsset, error) {
	r.Body = http.MaxBytesReader(w, r.Body, int64(max(limits.Image, limits.Model)+uploadOverhead))
	mr, err := r.MultipartReader()
	if err != nil {
		return NewAsset{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"send the file as multipart/form-data in the field \"file\" (curl -F file=@map.png)")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return NewAsset{}, apierr.Field("file", "the multipart body has no field \"file\"; send the file in it (curl -F file=@map.png)")
		}
		if err != nil {
			return NewAsset{}, uploadReadError(err, limits.Model)
		}
		if part.FormName() == "file" {
			n, err := readFilePart(part, limits)
			if e := (*apierr.Error)(nil); errors.As(err, &e) && e.Code == "file_too_large" {
				// Read the rest (up to the body's cap) so the client, still sending, gets the
				// answer rather than a reset connection.
				_, _ = io.Copy(io.Discard, r.Body)
			}
			return n, err
		}
	}
}

// readFilePart reads the file part, types it by content and checks its size and contents.
func readFilePart(part *multipart.Part, limits UploadLimits) (NewAsset, error) {
	head := make([]byte, sniffHead)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return NewAsset{}, uploadReadError(err, limits.Model)
	}
	head = head[:n]
	t := sniff(head)
	if t.kind == "" {
		return NewAsset{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported_file_type",
			"this file's content is %s; upload a PNG, JPEG, WebP or GIF image or a glTF model (.glb, .gltf); SVG is not accepted because it can carry script", t.contentType).
			With("detectedType", t.contentType).With("supported", SupportedTypes)
	}
	limit := limits.of(t.kind)
	rest, err := io.ReadAll(io.LimitReader(part, int64(limit-len(head)+1)))
	if err != nil {
		return NewAsset{}, uploadReadError(err, limit)
	}
	data := append(head, rest...)
	if len(data) > limit {
		return NewAsset{}, fileTooLarge(t.kind, limit)
	}
	width, height, problem := t.inspect(data)
	if problem != "" {
		return NewAsset{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported_file_type", "%s", problem).
			With("detectedType", t.contentType).With("supported", SupportedTypes)
	}
	return NewAsset{Name: cleanFileName(part.FileName()), Kind: t.kind, ContentType: t.contentType, Ext: t.ext, Width: width, Height: height, Data: data}, nil
}

// SupportedTypes are the content types an upload may have.
var SupportedTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif", "model/gltf-binary", "model/gltf+json"}

func fileTooLarge(kind string, limit int) error {
	return apierr.New(http.StatusRequestEntityTooLarge, "file_too_large", "this %s is larger than the %d-byte limit for %ss on this server", kind, limit, kind).
		With("limit", limit)
}

// uploadReadError names a body over its size cap; other read failures are the client's
// broken multipart.
func uploadReadError(err error, limit int) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return fileTooLarge(AssetModel, limit)
	}
	return apierr.New(http.StatusBadRequest, "malformed_multipart", "the multipart body could not be read: %v", err)
}

// cleanFileName keeps the base name a client sent, for display only: never a path, never
// used to store or serve the file.
func cleanFileName(s string) string {
	s = path.Base(strings.ReplaceAll(s, "\\", "/"))
	if s == "." || s == "/" || !utf8.ValidString(s) {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}
