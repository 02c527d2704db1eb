package ops

import "encoding/json"

// Folder is a folder document: it groups other documents and carries a description.
type Folder struct {
	Description string `json:"description"`
}

func init() {
	register(&docType{
		name:  "folder",
		empty: func() Document { return &Folder{} },
		decode: func(data []byte) (Document, error) {
			f := &Folder{}
			if err := json.Unmarshal(data, f); err != nil {
				return nil, err
			}
			return f, nil
		},
		ops: map[string]opFunc{
			"folder.setDescription": folderSetDescription,
		},
	})
}

// Type implements Document.
func (f *Folder) Type() string { return "folder" }

// JSON implements Document.
func (f *Folder) JSON() []byte { return mustJSON(f) }

// Text implements Document: the name, then the description.
func (f *Folder) Text(name string) string { return f.PlainText(name, asIs) }

// PlainText implements MarkdownText: the description is Markdown.
func (f *Folder) PlainText(name string, plain func(string) string) string {
	return joinText([]string{name, plain(f.Description)})
}

func (f *Folder) clone() Document {
	c := *f
	return &c
}

type setDescriptionParams struct {
	opField
	Description *string `json:"description"`
}

func folderSetDescription(c *opCtx, doc Document) (any, error) {
	f := doc.(*Folder)
	var p setDescriptionParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Description == nil {
		return nil, required(c.name, "description")
	}
	if err := text("description", *p.Description, 0, maxDescription); err != nil {
		return nil, err
	}
	f.Description = *p.Description
	return struct {
		Op          string `json:"op"`
		Description string `json:"description"`
	}{c.name, f.Description}, nil
}
