module github.com/nnuelab/nnuelab

go 1.26.8
