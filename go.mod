module github.com/kubewire/kubewire

go 1.25

require gopkg.in/yaml.v3 v3.0.1
