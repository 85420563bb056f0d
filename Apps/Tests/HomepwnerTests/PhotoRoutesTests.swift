import Foundation
import HomepwnerApp
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Photo routes")
@MainActor struct PhotoRoutesTests {
    @Test("Upload, show, replace and delete a photo")
    func photoCycle() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            let uri = "/items/\(item.itemKey)/photo"
            #expect(try await client.get(uri).status == .notFound)

            let uploaded = try await client.upload(uri, data: TestImages.png)
            #expect(uploaded.status == .seeOther)
            #expect(uploaded.location == "/items/\(item.itemKey)")
            let shown = try await client.get(uri)
            #expect(shown.status == .ok)
            #expect(shown.headers[.contentType] == "image/png")
            #expect(shown.bytes == TestImages.png)
            #expect(try await client.get("/items/\(item.itemKey)").text.contains("id=\"photo\""))
            #expect(try await client.get("/").text.contains("class=\"thumb\""))

            // Replace with a JPEG sent as a raw body.
            #expect(try await client.post(uri, body: TestImages.jpeg, contentType: "image/jpeg").status == .seeOther)
            let replaced = try await client.get(uri)
            #expect(replaced.headers[.contentType] == "image/jpeg")
            #expect(replaced.bytes == TestImages.jpeg)

            #expect(try await client.post("\(uri)/delete", form: []).status == .seeOther)
            #expect(try await client.get(uri).status == .notFound)
            #expect(try await client.upload(uri, data: TestImages.png).status == .seeOther)
            #expect(try await client.delete(uri).status == .noContent)
            #expect(try await client.get(uri).status == .notFound)
            // Deleting a photo that is not there is not an error.
            #expect(try await client.delete(uri).status == .noContent)
        }
    }

    @Test("Deleting an item deletes its photo")
    func deleteItemDeletesPhoto() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            let other = try await harness.inventory.createItem(name: "Lens", serialNumber: nil, valueInDollars: "30")
            _ = try await client.upload("/items/\(item.itemKey)/photo", data: TestImages.png)
            _ = try await client.upload("/items/\(other.itemKey)/photo", data: TestImages.jpeg)
            #expect(harness.inventory.hasPhoto(forKey: item.itemKey))
            #expect(try await client.post("/items/\(item.itemKey)/delete", form: []).status == .seeOther)
            #expect(try await client.get("/items/\(item.itemKey)/photo").status == .notFound)
            try harness.inventory.save()
            #expect(!harness.inventory.hasPhoto(forKey: item.itemKey))
            #expect(try await harness.inventory.photo(forKey: other.itemKey).data == Data(TestImages.jpeg))
        }
    }

    @Test("Oversized uploads get 413 and keep the old photo")
    func oversized() async throws {
        var limits = Inventory.Limits()
        limits.maxPhotoBytes = 1024
        try await HTTPHarness.run(limits: limits) { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            let uri = "/items/\(item.itemKey)/photo"
            _ = try await client.upload(uri, data: TestImages.png)
            let big = TestImages.png + [UInt8](repeating: 7, count: 2000)
            let multipart = try await client.upload(uri, data: big)
            #expect(multipart.status == .contentTooLarge)
            #expect(multipart.text.hasPrefix("413 "))
            let raw = try await client.post(uri, body: big, contentType: "image/png")
            #expect(raw.status == .contentTooLarge)
            // Far past the limit: the body is not even collected.
            let huge = try await client.upload(uri, data: TestImages.png + [UInt8](repeating: 7, count: 200_000))
            #expect(huge.status == .contentTooLarge)
            #expect(try await client.get(uri).bytes == TestImages.png)
        }
    }

    @Test("Uploads that are not JPEG or PNG, or not well-formed, are refused")
    func badUploads() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            let uri = "/items/\(item.itemKey)/photo"
            #expect(
                try await client.upload(uri, data: Array("GIF89a....".utf8), partType: "image/gif").status
                    == .unsupportedMediaType)
            #expect(try await client.upload(uri, data: []).status == .badRequest)
            #expect(try await client.upload(uri, data: TestImages.png, field: "picture").status == .badRequest)
            #expect(
                try await client.post(uri, body: TestImages.png, contentType: "text/plain").status
                    == .unsupportedMediaType)
            #expect(try await client.post(uri, body: TestImages.png, contentType: nil).status == .unsupportedMediaType)
            #expect(
                try await client.post(uri, body: Array("Hello".utf8), contentType: "image/png").status
                    == .unsupportedMediaType)
            let boundary = Multipart.boundary
            // No closing boundary.
            let truncated =
                Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\n".utf8) + TestImages.png
            #expect(
                try await client.post(uri, body: truncated, contentType: "multipart/form-data; boundary=\(boundary)")
                    .status == .badRequest)
            // No end of part headers.
            let noHeaders = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"".utf8)
            #expect(
                try await client.post(uri, body: noHeaders, contentType: "multipart/form-data; boundary=\(boundary)")
                    .status == .badRequest)
            // A boundary that never appears.
            #expect(
                try await client.post(uri, body: TestImages.png, contentType: "multipart/form-data; boundary=zzz")
                    .status == .badRequest)
            // Multipart with no boundary parameter.
            #expect(
                try await client.post(uri, body: TestImages.png, contentType: "multipart/form-data").status
                    == .unsupportedMediaType)
            #expect(!harness.inventory.hasPhoto(forKey: item.itemKey))
        }
    }

    @Test("Mangled multipart bodies never crash the server and never store a photo")
    func mangledMultipart() async throws {
        try await HTTPHarness.run { harness, client async throws in
            let item = try await harness.inventory.createItem(name: "Camera", serialNumber: nil, valueInDollars: "80")
            let uri = "/items/\(item.itemKey)/photo"
            let (valid, type) = Multipart.body(
                data: Array("not an image at all".utf8), field: "photo", filename: "x.png", partType: "image/png")
            var generator = SystemRandomNumberGenerator()
            for round in 0..<150 {
                var body = valid
                // Cut, flip or splice bytes; the photo itself is never a valid image.
                switch round % 3 {
                case 0: body = Array(body.prefix(Int.random(in: 0..<body.count, using: &generator)))
                case 1:
                    for _ in 0..<4 {
                        body[Int.random(in: 0..<body.count, using: &generator)] = UInt8.random(
                            in: 0...255, using: &generator)
                    }
                default:
                    let at = Int.random(in: 0..<body.count, using: &generator)
                    body.insert(contentsOf: Array("\r\n--\(Multipart.boundary)\r\n".utf8), at: at)
                }
                let status = try await client.post(uri, body: body, contentType: type).status
                #expect([.badRequest, .unsupportedMediaType].contains(status), "round \(round): \(status)")
            }
            #expect(!harness.inventory.hasPhoto(forKey: item.itemKey))
            #expect(try await client.get("/").status == .ok)
        }
    }
}
