// Command uidoc writes the OpenAPI document the UI's types are generated
// from (openapi.UIDocument) to the file -o, or to standard output.
//
//	go run ./internal/openapi/uidoc -o ui/openapi.json
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/gameadmin/admin/internal/openapi"
)

func main() {
	out := flag.String("o", "", "the file to write (standard output when empty)")
	flag.Parse()
	b, err := json.MarshalIndent(openapi.UIDocument(), "", "  ")
	if err != nil {
		log.Fatalf("uidoc: %v", err)
	}
	b = append(b, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(b)
	} else {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		log.Fatalf("uidoc: %v", err)
	}
}
