package store

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"time"
)

// zipStream writes a zip archive in one pass, holding nothing per file in memory: the
// central directory, which a zip keeps at its end and archive/zip.Writer holds in memory
// until Close (about 350 bytes per file: 140 MB for a 100,000-document world), goes to a
// temporary file as each file ends and is copied out at the end. Files are deflated and
// followed by a data descriptor (their sizes are known only then); the directory uses the
// zip64 extensions when there are more than 65,535 files or offsets past 4 GiB, as
// archive/zip.Reader and unzip read them.
type zipStream struct {
	out     *countWriter
	dir     *os.File
	dirBuf  *bufio.Writer
	entries uint64
	date    uint16 // MS-DOS date and time of every file
	time    uint16

	// The file being written.
	open       bool
	name       string
	offset     uint64
	deflate    *flate.Writer
	crc        hash.Hash32
	plain      uint64 // uncompressed bytes
	compressed *countWriter
}

const (
	zipFlags         = 0x8 | 0x800 // sizes in a data descriptor; UTF-8 names
	zipVersion       = 20
	zipVersion64     = 45
	zipCreatorUnix   = 3 << 8
	uint32max        = 0xffffffff
	uint16max        = 0xffff
	zipMethodDeflate = 8
)

// newZipStream starts an archive on w whose files all carry the time modified.
func newZipStream(w io.Writer, modified time.Time) (*zipStream, error) {
	dir, err := os.CreateTemp("", "loreweave-export-*.zipdir")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(dir.Name()) // gone when closed, whatever happens (Discard removes it where an open file cannot be)
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	z := &zipStream{out: &countWriter{w: w}, dir: dir, dirBuf: bufio.NewWriterSize(dir, 64<<10), deflate: fw, crc: crc32.NewIEEE()}
	if modified.Before(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) {
		modified = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	modified = modified.UTC()
	z.date = uint16(modified.Day() + int(modified.Month())<<5 + (modified.Year()-1980)<<9)
	z.time = uint16(modified.Second()/2 + modified.Minute()<<5 + modified.Hour()<<11)
	return z, nil
}

// Create starts the next file; write its bytes to the zipStream itself.
func (z *zipStream) Create(name string) error {
	if err := z.finish(); err != nil {
		return err
	}
	var h [30]byte
	le := binary.LittleEndian
	le.PutUint32(h[0:], 0x04034b50)
	le.PutUint16(h[4:], zipVersion)
	le.PutUint16(h[6:], zipFlags)
	le.PutUint16(h[8:], zipMethodDeflate)
	le.PutUint16(h[10:], z.time)
	le.PutUint16(h[12:], z.date)
	// crc and sizes (14..25) follow in the data descriptor
	le.PutUint16(h[26:], uint16(len(name)))
	z.offset = z.out.n
	if _, err := z.out.Write(h[:]); err != nil {
		return err
	}
	if _, err := io.WriteString(z.out, name); err != nil {
		return err
	}
	z.open, z.name, z.plain = true, name, 0
	z.crc.Reset()
	z.compressed = &countWriter{w: z.out}
	z.deflate.Reset(z.compressed)
	return nil
}

// Write writes to the file being written.
func (z *zipStream) Write(p []byte) (int, error) {
	if !z.open {
		return 0, errors.New("zip: no file to write to")
	}
	z.crc.Write(p)
	z.plain += uint64(len(p))
	return z.deflate.Write(p)
}

// finish ends the file being written: its data descriptor, and its directory entry.
func (z *zipStream) finish() error {
	if !z.open {
		return nil
	}
	z.open = false
	if err := z.deflate.Close(); err != nil {
		return err
	}
	crc, size, plain := z.crc.Sum32(), z.compressed.n, z.plain
	big := size >= uint32max || plain >= uint32max
	le := binary.LittleEndian
	d := le.AppendUint32(nil, 0x08074b50)
	d = le.AppendUint32(d, crc)
	if big {
		d = le.AppendUint64(le.AppendUint64(d, size), plain)
	} else {
		d = le.AppendUint32(le.AppendUint32(d, uint32(size)), uint32(plain))
	}
	if _, err := z.out.Write(d); err != nil {
		return err
	}

	var extra []byte // zip64: the fields that do not fit, in this order
	size32, plain32, offset32 := uint32(size), uint32(plain), uint32(z.offset)
	if plain >= uint32max {
		extra, plain32 = le.AppendUint64(extra, plain), uint32max
	}
	if size >= uint32max {
		extra, size32 = le.AppendUint64(extra, size), uint32max
	}
	if z.offset >= uint32max {
		extra, offset32 = le.AppendUint64(extra, z.offset), uint32max
	}
	version := uint16(zipVersion)
	if len(extra) > 0 {
		extra = append(le.AppendUint16(le.AppendUint16(nil, 0x0001), uint16(len(extra))), extra...)
		version = zipVersion64
	}
	var h [46]byte
	le.PutUint32(h[0:], 0x02014b50)
	le.PutUint16(h[4:], zipCreatorUnix|version)
	le.PutUint16(h[6:], version)
	le.PutUint16(h[8:], zipFlags)
	le.PutUint16(h[10:], zipMethodDeflate)
	le.PutUint16(h[12:], z.time)
	le.PutUint16(h[14:], z.date)
	le.PutUint32(h[16:], crc)
	le.PutUint32(h[20:], size32)
	le.PutUint32(h[24:], plain32)
	le.PutUint16(h[28:], uint16(len(z.name)))
	le.PutUint16(h[30:], uint16(len(extra)))
	// comment length, disk number, internal attributes: 0
	le.PutUint32(h[38:], 0o100644<<16) // a regular file, rw-r--r--
	le.PutUint32(h[42:], offset32)
	z.dirBuf.Write(h[:])
	z.dirBuf.WriteString(z.name)
	if _, err := z.dirBuf.Write(extra); err != nil {
		return err
	}
	z.entries++
	return nil
}

// Close ends the last file and writes the central directory and its end records. It does
// not close the underlying writer.
func (z *zipStream) Close() error {
	defer z.Discard()
	if err := z.finish(); err != nil {
		return err
	}
	if err := z.dirBuf.Flush(); err != nil {
		return err
	}
	start := z.out.n
	if _, err := z.dir.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(z.out, z.dir); err != nil {
		return err
	}
	end := z.out.n
	size := end - start
	le := binary.LittleEndian
	records, size32, start32 := uint16(z.entries), uint32(size), uint32(start)
	var b []byte
	if z.entries >= uint16max || size >= uint32max || start >= uint32max {
		records, size32, start32 = uint16max, uint32max, uint32max
		b = le.AppendUint32(b, 0x06064b50) // zip64 end of central directory
		b = le.AppendUint64(b, 44)
		b = le.AppendUint16(b, zipCreatorUnix|zipVersion64)
		b = le.AppendUint16(b, zipVersion64)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, z.entries)
		b = le.AppendUint64(b, z.entries)
		b = le.AppendUint64(b, size)
		b = le.AppendUint64(b, start)
		b = le.AppendUint32(b, 0x07064b50) // its locator
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, end)
		b = le.AppendUint32(b, 1)
	}
	b = le.AppendUint32(b, 0x06054b50) // end of central directory
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, records)
	b = le.AppendUint16(b, records)
	b = le.AppendUint32(b, size32)
	b = le.AppendUint32(b, start32)
	b = le.AppendUint16(b, 0)
	_, err := z.out.Write(b)
	return err
}

// Discard drops the temporary directory file (of an archive that will not be closed, or
// was).
func (z *zipStream) Discard() {
	z.dir.Close()
	_ = os.Remove(z.dir.Name())
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}
