module github.com/h3a-check/h3a-check

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/sethvargo/go-githubactions v1.3.1
	golang.org/x/text v0.42.0
	gopkg.in/yaml.v3 v3.0.1
)
