# syntax=docker/dockerfile:1
# Build: docker build -t loreweave .
# Run:   docker run -p 127.0.0.1:8090:8090 -e LOREWEAVE_BASE_URL=http://localhost:8090 -v loreweave-data:/pb_data loreweave
# (A bind-mounted host directory instead of the volume must be writable by the image's nonroot user, uid 65532.)
FROM golang:1.26-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags="-s -w" -o /out/loreweave . && mkdir -p /out/pb_data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/loreweave /usr/local/bin/loreweave
COPY --from=build --chown=nonroot:nonroot /out/pb_data /pb_data
VOLUME /pb_data
EXPOSE 8090
ENTRYPOINT ["/usr/local/bin/loreweave"]
CMD ["serve", "--http=0.0.0.0:8090", "--dir=/pb_data"]
