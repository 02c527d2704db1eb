package ops

import (
	"encoding/json"
	"slices"
)

// Map is a map document: one image and the pins placed on it, in image pixels from the top
// left corner.
type Map struct {
	Image Image `json:"image"`
	Pins  []Pin `json:"pins"`
}

// Image is the picture a map is drawn on; a zero Image means none is set yet.
type Image struct {
	URL    string `json:"url"`
	Width  int64  `json:"width"`
	Height int64  `json:"height"`
}

// Pin is one labelled point on a map, optionally linked to a document of the same world.
type Pin struct {
	ID         string  `json:"id"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Label      string  `json:"label"`
	DocumentID string  `json:"documentId"`
}

const (
	maxPins = 5000
	// maxImageSide is the largest width or height of a map image, in pixels.
	maxImageSide = 100000
	maxID        = 200
)

func init() {
	register(&docType{
		name:  "map",
		empty: func() Document { return &Map{Pins: []Pin{}} },
		decode: func(data []byte) (Document, error) {
			m := &Map{}
			if err := json.Unmarshal(data, m); err != nil {
				return nil, err
			}
			if m.Pins == nil {
				m.Pins = []Pin{}
			}
			return m, nil
		},
		ops: map[string]opFunc{
			"map.setImage":  mapSetImage,
			"map.addPin":    mapAddPin,
			"map.movePin":   mapMovePin,
			"map.updatePin": mapUpdatePin,
			"map.removePin": mapRemovePin,
		},
	})
}

// Type implements Document.
func (m *Map) Type() string { return "map" }

// JSON implements Document.
func (m *Map) JSON() []byte { return mustJSON(m) }

// Text implements Document: the name, then each pin's label.
func (m *Map) Text(name string) string {
	parts := make([]string, 0, 1+len(m.Pins))
	parts = append(parts, name)
	for _, p := range m.Pins {
		parts = append(parts, p.Label)
	}
	return joinText(parts)
}

func (m *Map) clone() Document {
	return &Map{Image: m.Image, Pins: slices.Clone(m.Pins)}
}

// findPin returns the index of the pin the op's "id" names.
func (m *Map) findPin(op string, id *string) (int, error) {
	pid, err := requiredID(op, id)
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(m.Pins, func(p Pin) bool { return p.ID == pid })
	if i < 0 {
		return 0, notFound("pin", pid)
	}
	return i, nil
}

// point reads a pin's x and y, which must lie on the image (0..width, 0..height).
func (m *Map) point(op string, x, y *jsonNumber) (float64, float64, error) {
	if m.Image.Width <= 0 || m.Image.Height <= 0 {
		return 0, 0, fieldError("x", "the map has no image yet; set one with map.setImage before placing pins")
	}
	if x == nil {
		return 0, 0, required(op, "x")
	}
	if y == nil {
		return 0, 0, required(op, "y")
	}
	fx, err := number("x", *x)
	if err != nil {
		return 0, 0, err
	}
	fy, err := number("y", *y)
	if err != nil {
		return 0, 0, err
	}
	if fx < 0 || fx > float64(m.Image.Width) {
		return 0, 0, fieldError("x", "%q must be between 0 and the image width %d, got %v", "x", m.Image.Width, fx)
	}
	if fy < 0 || fy > float64(m.Image.Height) {
		return 0, 0, fieldError("y", "%q must be between 0 and the image height %d, got %v", "y", m.Image.Height, fy)
	}
	// +0 turns -0 into 0, so the stored JSON never says -0.
	return fx + 0, fy + 0, nil
}

// checkDocumentID accepts "" (no link) or the id of a document of the same world.
func checkDocumentID(env Env, id string) error {
	if id == "" {
		return nil
	}
	if err := text("documentId", id, 1, maxID); err != nil {
		return err
	}
	if env.DocumentExists == nil {
		return fieldError("documentId", "pins cannot be linked to documents here (no way to check that %q exists); leave documentId empty", Echo(id))
	}
	if !env.DocumentExists(id) {
		return fieldError("documentId", "no document %q in this world", Echo(id))
	}
	return nil
}

type setImageParams struct {
	opField
	URL    *string     `json:"url"`
	Width  *jsonNumber `json:"width"`
	Height *jsonNumber `json:"height"`
}

// mapSetImage sets the map's image. Pins keep their pixel positions, so an image smaller
// than the pins need is rejected (invalid_field on width or height, naming the first pin
// that would fall outside): move or remove those pins first.
func mapSetImage(c *opCtx, doc Document) (any, error) {
	m := doc.(*Map)
	var p setImageParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.URL == nil {
		return nil, required(c.name, "url")
	}
	if err := checkURL("url", *p.URL); err != nil {
		return nil, err
	}
	img := Image{URL: *p.URL}
	for _, side := range []struct {
		field string
		n     *jsonNumber
		dst   *int64
	}{{"width", p.Width, &img.Width}, {"height", p.Height, &img.Height}} {
		if side.n == nil {
			return nil, required(c.name, side.field)
		}
		v, err := integer(side.field, *side.n)
		if err != nil {
			return nil, err
		}
		if v < 1 || v > maxImageSide {
			return nil, fieldError(side.field, "%q must be between 1 and %d pixels, got %d", side.field, maxImageSide, v)
		}
		*side.dst = v
	}
	for _, pin := range m.Pins {
		field := ""
		switch {
		case pin.X > float64(img.Width):
			field = "width"
		case pin.Y > float64(img.Height):
			field = "height"
		default:
			continue
		}
		e := fieldError(field, "the image is too small for this map's pins: pin %q (%s) at (%v, %v) would lie outside a %d×%d image; move or remove it first", pin.Label, pin.ID, pin.X, pin.Y, img.Width, img.Height)
		e.Details = map[string]any{"id": pin.ID}
		return nil, e
	}
	m.Image = img
	return struct {
		Op string `json:"op"`
		Image
	}{c.name, img}, nil
}

type addPinParams struct {
	opField
	X          *jsonNumber `json:"x"`
	Y          *jsonNumber `json:"y"`
	Label      *string     `json:"label"`
	DocumentID *string     `json:"documentId"`
}

// pinApplied is the applied form of map.addPin: the whole new pin.
type pinApplied struct {
	Op string `json:"op"`
	Pin
}

// mapAddPin places a new "pin-" pin on the image, optionally linked to a document.
func mapAddPin(c *opCtx, doc Document) (any, error) {
	m := doc.(*Map)
	var p addPinParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	x, y, err := m.point(c.name, p.X, p.Y)
	if err != nil {
		return nil, err
	}
	if p.Label == nil {
		return nil, required(c.name, "label")
	}
	if err := c.label("label", *p.Label, 1, maxLabel); err != nil {
		return nil, err
	}
	pin := Pin{X: x, Y: y, Label: *p.Label}
	if p.DocumentID != nil {
		if err := checkDocumentID(c.env, *p.DocumentID); err != nil {
			return nil, err
		}
		pin.DocumentID = *p.DocumentID
	}
	if len(m.Pins) >= maxPins {
		return nil, tooMany("pins", "pins", maxPins)
	}
	pin.ID = c.newID("pin-")
	m.Pins = append(m.Pins, pin)
	c.out.Created = append(c.out.Created, Created{ID: pin.ID, Label: pin.Label})
	return pinApplied{c.name, pin}, nil
}

type movePinParams struct {
	opField
	ID *string     `json:"id"`
	X  *jsonNumber `json:"x"`
	Y  *jsonNumber `json:"y"`
}

func mapMovePin(c *opCtx, doc Document) (any, error) {
	m := doc.(*Map)
	var p movePinParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := m.findPin(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	x, y, err := m.point(c.name, p.X, p.Y)
	if err != nil {
		return nil, err
	}
	pin := &m.Pins[i]
	pin.X, pin.Y = x, y
	return struct {
		Op string  `json:"op"`
		ID string  `json:"id"`
		X  float64 `json:"x"`
		Y  float64 `json:"y"`
	}{c.name, pin.ID, x, y}, nil
}

type updatePinParams struct {
	opField
	ID         *string `json:"id"`
	Label      *string `json:"label"`
	DocumentID *string `json:"documentId"`
}

// updatePinApplied is the applied form of map.updatePin: the fields it set.
type updatePinApplied struct {
	Op         string  `json:"op"`
	ID         string  `json:"id"`
	Label      *string `json:"label,omitempty"`
	DocumentID *string `json:"documentId,omitempty"`
}

// mapUpdatePin changes a pin's label, its document link, or both; documentId "" removes
// the link.
func mapUpdatePin(c *opCtx, doc Document) (any, error) {
	m := doc.(*Map)
	var p updatePinParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := m.findPin(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	if p.Label == nil && p.DocumentID == nil {
		return nil, atLeastOne(c.name, "label", "documentId")
	}
	pin := &m.Pins[i]
	out := updatePinApplied{Op: c.name, ID: pin.ID}
	if p.Label != nil {
		if err := c.label("label", *p.Label, 1, maxLabel); err != nil {
			return nil, err
		}
		pin.Label, out.Label = *p.Label, p.Label
	}
	if p.DocumentID != nil {
		if err := checkDocumentID(c.env, *p.DocumentID); err != nil {
			return nil, err
		}
		pin.DocumentID, out.DocumentID = *p.DocumentID, p.DocumentID
	}
	return out, nil
}

func mapRemovePin(c *opCtx, doc Document) (any, error) {
	m := doc.(*Map)
	var p removeParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	i, err := m.findPin(c.name, p.ID)
	if err != nil {
		return nil, err
	}
	id := m.Pins[i].ID
	m.Pins = slices.Delete(m.Pins, i, i+1)
	return idApplied{c.name, id}, nil
}
