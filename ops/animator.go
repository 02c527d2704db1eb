package ops

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Animator is an animated 3D model document: the model, its named clips and the clip that
// plays.
type Animator struct {
	Model        Model  `json:"model"`
	Clips        []Clip `json:"clips"`
	ActiveClipID string `json:"activeClipId"`
}

// Model points at a glTF/GLB file.
type Model struct {
	URL  string `json:"url"`
	Name string `json:"name"`
}

// Clip is one named animation clip of the model.
type Clip struct {
	ID string `json:"id"`
}

const (
	maxURL    = 2048
	maxName   = 200
	maxClips  = 1000
	maxClipID = 200
)

func init() {
	register(&docType{
		name:  "animator",
		empty: func() Document { return &Animator{Clips: []Clip{}} },
		decode: func(data []byte) (Document, error) {
			a := &Animator{}
			if err := json.Unmarshal(data, a); err != nil {
				return nil, err
			}
			if a.Clips == nil {
				a.Clips = []Clip{}
			}
			return a, nil
		},
		ops: map[string]opFunc{
			"animator.setModel":      animatorSetModel,
			"animator.setClips":      animatorSetClips,
			"animator.setActiveClip": animatorSetActiveClip,
		},
	})
}

// Type implements Document.
func (a *Animator) Type() string { return "animator" }

// JSON implements Document.
func (a *Animator) JSON() []byte { return mustJSON(a) }

// Text implements Document: the document name, then the clip ids, space separated.
func (a *Animator) Text(name string) string {
	parts := []string{name}
	for _, c := range a.Clips {
		parts = append(parts, c.ID)
	}
	return joinText(parts)
}

func (a *Animator) clone() Document {
	c := *a
	c.Clips = slices.Clone(a.Clips)
	return &c
}

func (a *Animator) clipIDs() []string {
	ids := make([]string, len(a.Clips))
	for i, c := range a.Clips {
		ids[i] = c.ID
	}
	return ids
}

// checkURL accepts an absolute http(s) URL or a path on this server.
func checkURL(field, s string) error {
	if err := text(field, s, 1, maxURL); err != nil {
		return err
	}
	u, err := url.Parse(s)
	if err != nil {
		return fieldError(field, "%q is not a valid URL", field)
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		if u.Host == "" {
			return fieldError(field, "%q must name a host", field)
		}
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(s, "/"):
	default:
		return fieldError(field, "%q must be an http(s) URL or a path starting with /", field)
	}
	return nil
}

type setModelParams struct {
	opField
	URL  *string `json:"url"`
	Name *string `json:"name"`
}

func animatorSetModel(c *opCtx, doc Document) (any, error) {
	a := doc.(*Animator)
	var p setModelParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.URL == nil {
		return nil, required(c.name, "url")
	}
	if err := checkURL("url", *p.URL); err != nil {
		return nil, err
	}
	m := Model{URL: *p.URL}
	if p.Name != nil {
		if err := c.label("name", *p.Name, 0, maxName); err != nil {
			return nil, err
		}
		m.Name = *p.Name
	}
	a.Model = m
	return struct {
		Op string `json:"op"`
		Model
	}{c.name, m}, nil
}

type setClipsParams struct {
	opField
	Clips *[]Clip `json:"clips"`
}

// animatorSetClips replaces the clip list. An active clip that is no longer in the list is
// cleared (activeClipId becomes ""), so the document never names a clip it does not have.
func animatorSetClips(c *opCtx, doc Document) (any, error) {
	a := doc.(*Animator)
	var p setClipsParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Clips == nil {
		return nil, required(c.name, "clips")
	}
	clips := *p.Clips
	if len(clips) > maxClips {
		return nil, fieldError("clips", "at most %d clips, got %d", maxClips, len(clips))
	}
	seen := make(map[string]bool, len(clips))
	for i, clip := range clips {
		field := fmt.Sprintf("clips[%d].id", i)
		if err := text(field, clip.ID, 1, maxClipID); err != nil {
			return nil, err
		}
		if seen[clip.ID] {
			return nil, fieldError(field, "clip id %q appears twice", Echo(clip.ID))
		}
		seen[clip.ID] = true
	}
	if clips == nil {
		clips = []Clip{}
	}
	a.Clips = slices.Clone(clips)
	if !seen[a.ActiveClipID] {
		a.ActiveClipID = ""
	}
	return struct {
		Op    string `json:"op"`
		Clips []Clip `json:"clips"`
	}{c.name, a.Clips}, nil
}

type setActiveClipParams struct {
	opField
	ClipID *string `json:"clipId"`
}

func animatorSetActiveClip(c *opCtx, doc Document) (any, error) {
	a := doc.(*Animator)
	var p setActiveClipParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.ClipID == nil {
		return nil, required(c.name, "clipId")
	}
	ids := a.clipIDs()
	if !slices.Contains(ids, *p.ClipID) {
		msg := fmt.Sprintf("the animator has no clip %q", Echo(*p.ClipID))
		if len(ids) == 0 {
			msg += "; it has no clips yet (set them with animator.setClips)"
		} else {
			msg += "; its clips are " + strings.Join(ids, ", ")
		}
		return nil, &Error{Code: CodeUnknownClip, Field: "clipId", Message: msg, Details: map[string]any{"clipIds": ids}}
	}
	a.ActiveClipID = *p.ClipID
	return struct {
		Op     string `json:"op"`
		ClipID string `json:"clipId"`
	}{c.name, a.ActiveClipID}, nil
}
