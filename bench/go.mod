module github.com/kubewire/kubewire/bench

go 1.23.0

require (
	github.com/kubewire/kubewire v0.0.0
	k8s.io/client-go v0.32.4
)

require (
	github.com/go-logr/logr v1.4.2 // indirect
	golang.org/x/time v0.7.0 // indirect
	k8s.io/apimachinery v0.32.4 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738 // indirect
)

replace github.com/kubewire/kubewire => ../
