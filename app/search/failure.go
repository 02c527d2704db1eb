package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/background"
)

// The index is derived data: whatever goes wrong with it (a damaged file, a full disk, an
// error or a panic from Bleve), the cure is to set it aside and rebuild it from the
// database, while the rest of the server carries on.

// indexError is a failure of the index itself, as opposed to one of the database: Bleve
// returned an error, or a segment is damaged. The indexer answers it with a rebuild.
type indexError struct {
	op  string
	err error
}

func (e *indexError) Error() string { return "search: " + e.op + ": " + e.err.Error() }
func (e *indexError) Unwrap() error { return e.err }

// failure marks err, returned by Bleve while doing op, as a failure of the index (nil stays
// nil).
func failure(op string, err error) error {
	if err == nil {
		return nil
	}
	return &indexError{op: op, err: err}
}

// isFailure reports whether err means the index must be rebuilt: Bleve failed, or something
// panicked while working on the index.
func isFailure(err error) bool {
	var ie *indexError
	var pe *background.PanicError
	return errors.As(err, &ie) || errors.As(err, &pe)
}

// RetryRebuilding is the Retry-After, in seconds, of a search made while the index is rebuilt.
const RetryRebuilding = 5

const codeRebuilding = "search_rebuilding"

// errRebuilding is the answer to a search while the index is rebuilt: 503 search_rebuilding,
// with Retry-After (and, for clients that see no headers, retryAfter).
func errRebuilding() error {
	e := apierr.New(http.StatusServiceUnavailable, codeRebuilding,
		"the search index is being rebuilt from the database after a failure; search again in a few seconds (everything else works meanwhile)").
		With("retryAfter", RetryRebuilding)
	e.Header = http.Header{"Retry-After": {strconv.Itoa(RetryRebuilding)}}
	return e
}

// Rebuilding reports whether err is the answer to a search made while the index is rebuilt.
func Rebuilding(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Code == codeRebuilding
}

// Bleve recovers a panic on its own background goroutines (the introducer, persister and
// merger of an index), but the goroutine's loop then stops for good: the index no longer
// persists or merges. Bleve reports such a panic to a callback registered by name, with the
// index's store directory; it marks that index broken, so that it is rebuilt.
const asyncErrors = "loreweave"

// inBackground maps the store directory of each open index to the index.
var inBackground sync.Map

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrors] = func(err error, storePath string) {
		if !errors.Is(err, scorch.ErrAsyncPanic) {
			return // Bleve retries what failed otherwise (a full disk may yet have room)
		}
		if ix, ok := inBackground.Load(storePath); ok {
			ix.(*Index).markBroken(failure("background work", err))
		}
	}
}

// storePath is the directory Bleve keeps an index's data in, as it names it.
func storePath(path string) string { return path + string(os.PathSeparator) + "store" }

// failpoint, set only by tests, runs at the named points of the index's work: "query" (a
// search), "apply" (indexing changes), "rebuild" (before a new index is filled). It may
// panic there, as Bleve may on a damaged index, or block.
var failpoint atomic.Pointer[func(point string)]

func atFailpoint(point string) {
	if fp := failpoint.Load(); fp != nil {
		(*fp)(point)
	}
}

// verify checks each segment of the index against the CRC-32 its footer records. Bleve does
// not, and reads a segment's dictionaries on goroutines of its own, where a panic on a
// damaged file would end the process: a damaged segment is found here instead, before any
// query reads it.
func verify(idx bleve.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	r, err := sc.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	// Every file is opened before any is read: Bleve's merger, already at work, may replace
	// segments meanwhile, and an open file stays readable once deleted. One deleted before
	// it could be opened was merged away, so it is not checked.
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, ss := range snap.Segments() {
		if p, ok := ss.Segment().(interface{ Path() string }); ok {
			f, err := os.Open(p.Path())
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			files = append(files, f)
		}
	}
	for _, f := range files {
		if err := verifySegment(f); err != nil {
			return err
		}
	}
	return nil
}

// verifySegment checks a segment file: its last four bytes are the CRC-32 (IEEE, big endian)
// of everything before them.
func verifySegment(f *os.File) error {
	name := filepath.Base(f.Name())
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < 4 {
		return fmt.Errorf("segment %s is truncated (%d bytes)", name, st.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, st.Size()-4)); err != nil {
		return fmt.Errorf("read segment %s: %w", name, err)
	}
	var footer [4]byte
	if _, err := f.ReadAt(footer[:], st.Size()-4); err != nil {
		return fmt.Errorf("read segment %s: %w", name, err)
	}
	if want := binary.BigEndian.Uint32(footer[:]); h.Sum32() != want {
		return fmt.Errorf("segment %s is damaged: checksum %08x, its footer says %08x", name, h.Sum32(), want)
	}
	return nil
}

// brokenSuffix names an index set aside: <path>.broken-<unix time>.
const brokenSuffix = ".broken-"

// moveAside renames a failed index to <path>.broken-<unix time>, for a look at what went
// wrong, after deleting any older copy: failure after failure cannot fill the disk. An
// index that cannot be renamed is deleted. It returns where the index went ("" if deleted
// or missing).
func moveAside(path string) (string, error) {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return "", fmt.Errorf("search: list %s: %w", dir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+brokenSuffix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return "", fmt.Errorf("search: delete the older broken index: %w", err)
			}
		}
	}
	aside := path + brokenSuffix + strconv.FormatInt(time.Now().Unix(), 10)
	err = os.Rename(path, aside)
	switch {
	case err == nil:
		return aside, nil
	case errors.Is(err, os.ErrNotExist):
		return "", nil
	}
	if rerr := os.RemoveAll(path); rerr != nil {
		return "", fmt.Errorf("search: move the broken index aside: %w; delete it: %w", err, rerr)
	}
	return "", nil
}
