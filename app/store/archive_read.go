package store

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"sync"
)

// An import reads a zip's central directory into archiveEntry values of its own rather than
// through archive/zip, whose Reader keeps a File of about 300 bytes for every file: a
// 100,000-document archive has half a million files, and their directory was most of an
// import's memory. An entry is its name and where its bytes are (48 bytes, and the name in a
// shared block).
// Stored and deflated files are read, zip64 included (the exporter writes zip64 records past
// 65,535 files); encrypted files and archives split over several disks are refused. Each file's
// size and CRC-32 are checked as it is read.

// archiveEntry is one file of a zip.
type archiveEntry struct {
	name   string // a slice of a shared block of names
	offset int64  // of its local header
	csize  int64  // compressed
	size   int64  // uncompressed
	crc    uint32
	method uint16
	// listed is set by the import when the manifest lists the file.
	listed bool
}

// nameBlock is the size of the blocks the names of a zip's files are copied into: one
// allocation per block instead of one per name.
const nameBlock = 1 << 20

var errNotZip = errors.New("not a zip file")

const (
	sigEOCD       = 0x06054b50
	sigEOCD64     = 0x06064b50
	sigEOCD64Loc  = 0x07064b50
	sigCentral    = 0x02014b50
	sigLocal      = 0x04034b50
	eocdLen       = 22
	eocd64LocLen  = 20
	centralLen    = 46
	localLen      = 30
	maxEOCDSearch = eocdLen + 0xffff // the end record and the longest comment
)

// readZipDirectory calls fn with each file of the zip held by r (size bytes), in the order
// of its central directory. The entry fn is given is reused for the next file: fn copies it.
func readZipDirectory(r io.ReaderAt, size int64, fn func(*archiveEntry)) error {
	// The end of central directory record: the last signature in the final 64 KiB.
	tail := min(size, maxEOCDSearch)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return err
	}
	at := -1
	for i := len(buf) - eocdLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == sigEOCD {
			at = i
			break
		}
	}
	if at < 0 {
		return fmt.Errorf("%w: no end of central directory record", errNotZip)
	}
	eocd := buf[at:]
	le := binary.LittleEndian
	if le.Uint16(eocd[4:]) != 0 || le.Uint16(eocd[6:]) != 0 {
		return errors.New("zip archives split over several disks are not read")
	}
	entries := uint64(le.Uint16(eocd[10:]))
	dirSize := uint64(le.Uint32(eocd[12:]))
	dirOffset := uint64(le.Uint32(eocd[16:]))
	eocdAt := size - tail + int64(at)
	if entries == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff {
		// zip64: the locator just before the end record points at the zip64 end record.
		if eocdAt < eocd64LocLen {
			return fmt.Errorf("%w: truncated zip64 locator", errNotZip)
		}
		loc := make([]byte, eocd64LocLen)
		if _, err := r.ReadAt(loc, eocdAt-eocd64LocLen); err != nil {
			return err
		}
		if le.Uint32(loc) != sigEOCD64Loc {
			return fmt.Errorf("%w: no zip64 locator", errNotZip)
		}
		rec := make([]byte, 56)
		recAt := int64(le.Uint64(loc[8:]))
		if recAt < 0 || recAt+56 > size {
			return fmt.Errorf("%w: the zip64 end record is outside the file", errNotZip)
		}
		if _, err := r.ReadAt(rec, recAt); err != nil {
			return err
		}
		if le.Uint32(rec) != sigEOCD64 {
			return fmt.Errorf("%w: no zip64 end record", errNotZip)
		}
		entries, dirSize, dirOffset = le.Uint64(rec[32:]), le.Uint64(rec[40:]), le.Uint64(rec[48:])
	}
	if dirOffset+dirSize > uint64(size) || dirOffset > uint64(size) {
		return fmt.Errorf("%w: the central directory is outside the file (truncated?)", errNotZip)
	}
	dir := io.NewSectionReader(r, int64(dirOffset), int64(dirSize))
	br := newByteReader(dir)
	head := make([]byte, centralLen)
	var rest []byte
	var names strings.Builder
	e := new(archiveEntry)
	for n := uint64(0); n < entries; n++ {
		if err := br.full(head); err != nil {
			return fmt.Errorf("%w: central directory entry %d: %v", errNotZip, n, err)
		}
		if le.Uint32(head) != sigCentral {
			return fmt.Errorf("%w: central directory entry %d has no signature", errNotZip, n)
		}
		flags := le.Uint16(head[8:])
		*e = archiveEntry{method: le.Uint16(head[10:]), crc: le.Uint32(head[16:]),
			csize: int64(le.Uint32(head[20:])), size: int64(le.Uint32(head[24:])), offset: int64(le.Uint32(head[42:]))}
		nameLen, extraLen, commentLen := int(le.Uint16(head[28:])), int(le.Uint16(head[30:])), int(le.Uint16(head[32:]))
		rest = slices.Grow(rest[:0], nameLen+extraLen+commentLen)[:nameLen+extraLen+commentLen]
		if err := br.full(rest); err != nil {
			return fmt.Errorf("%w: central directory entry %d: %v", errNotZip, n, err)
		}
		// A Builder never changes the bytes it has handed out, so each name is a slice of
		// the block's string; a full block is left to the names in it.
		if names.Cap()-names.Len() < nameLen {
			names = strings.Builder{}
			names.Grow(max(nameBlock, nameLen))
		}
		start := names.Len()
		names.Write(rest[:nameLen])
		e.name = names.String()[start:]
		if flags&1 != 0 {
			return fmt.Errorf("%s is encrypted", e.name)
		}
		for extra := rest[nameLen : nameLen+extraLen]; len(extra) >= 4; {
			id, l := le.Uint16(extra), int(le.Uint16(extra[2:]))
			if len(extra) < 4+l {
				break
			}
			if id == 0x0001 { // zip64: the 64-bit values of the fields set to all ones, in order
				f := extra[4 : 4+l]
				for _, v := range []*int64{&e.size, &e.csize, &e.offset} {
					if *v == 0xffffffff && len(f) >= 8 {
						*v, f = int64(le.Uint64(f)), f[8:]
					}
				}
			}
			extra = extra[4+l:]
		}
		if e.offset < 0 || e.csize < 0 || e.size < 0 || e.offset+e.csize > size {
			return fmt.Errorf("%w: %s lies outside the file (truncated?)", errNotZip, e.name)
		}
		fn(e)
	}
	return nil
}

// byteReader reads a section in 64 KiB chunks.
type byteReader struct {
	r   io.Reader
	buf []byte
	pos int
}

func newByteReader(r io.Reader) *byteReader { return &byteReader{r: r} }

func (b *byteReader) full(p []byte) error {
	for len(p) > 0 {
		if b.pos == len(b.buf) {
			if b.buf == nil {
				b.buf = make([]byte, 64<<10)
			}
			n, err := b.r.Read(b.buf[:cap(b.buf)])
			if n == 0 {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			b.buf, b.pos = b.buf[:n], 0
		}
		c := copy(p, b.buf[b.pos:])
		p, b.pos = p[c:], b.pos+c
	}
	return nil
}

// Open returns a reader of the file's bytes in the zip r, which fails at the end if they are not as many
// as the directory says or their CRC-32 differs.
func (e *archiveEntry) Open(r io.ReaderAt) (io.ReadCloser, error) {
	var local [localLen]byte
	if _, err := r.ReadAt(local[:], e.offset); err != nil {
		return nil, fmt.Errorf("%s: %w", e.name, err)
	}
	le := binary.LittleEndian
	if le.Uint32(local[:]) != sigLocal {
		return nil, fmt.Errorf("%s: no local file header where the directory says", e.name)
	}
	start := e.offset + localLen + int64(le.Uint16(local[26:])) + int64(le.Uint16(local[28:]))
	data := io.NewSectionReader(r, start, e.csize)
	var rc io.ReadCloser
	switch e.method {
	case 0:
		rc = io.NopCloser(data)
	case 8:
		if fr, ok := inflaters.Get().(io.ReadCloser); ok {
			_ = fr.(flate.Resetter).Reset(data, nil)
			rc = fr
		} else {
			rc = flate.NewReader(data)
		}
	default:
		return nil, fmt.Errorf("%s: compression method %d is not read (stored or deflated only)", e.name, e.method)
	}
	return &checkedReader{rc: rc, e: e, h: crc32.NewIEEE()}, nil
}

// checkedReader checks a file's size and CRC-32 as it is read.
type checkedReader struct {
	rc io.ReadCloser
	e  *archiveEntry
	h  hash.Hash32
	n  int64
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n > c.e.size {
		return n, fmt.Errorf("%s is longer than its directory entry says", c.e.name)
	}
	if err == io.EOF {
		if c.n != c.e.size {
			return n, fmt.Errorf("%s: %w", c.e.name, io.ErrUnexpectedEOF)
		}
		if c.h.Sum32() != c.e.crc {
			return n, fmt.Errorf("%s: its CRC-32 does not match the directory (corrupt)", c.e.name)
		}
	}
	return n, err
}

func (c *checkedReader) Close() error {
	err := c.rc.Close()
	if c.e.method == 8 {
		inflaters.Put(c.rc)
	}
	return err
}

// inflaters are deflate readers to reuse: each holds a 32 KiB window, and an archive has a
// few files a document.
var inflaters sync.Pool
