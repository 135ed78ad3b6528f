import { describe, expect, it } from 'vitest';
import { amzDate, signS3Request, signV4 } from './attachment-store.js';

describe('AWS Signature Version 4 (S3)', () => {
  it("signs the GET Object example of Amazon's S3 documentation to its published signature", () => {
    // docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "Example: GET Object"
    const at = new Date('2013-05-24T00:00:00Z');
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const headers = signV4({
      method: 'GET',
      host: 'examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      headers: { Host: 'examplebucket.s3.amazonaws.com', Range: 'bytes=0-9', 'x-amz-content-sha256': empty, 'x-amz-date': amzDate(at) },
      payloadHash: empty,
      region: 'us-east-1',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      at,
    });
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('addresses objects path-style and encodes each key segment', () => {
    const { url, headers } = signS3Request(
      { endpoint: 'http://127.0.0.1:9000/', bucket: 'files', region: 'eu-central-1', accessKeyId: 'k', secretAccessKey: 's' },
      'PUT',
      'attachments/7/a b(1)',
      Buffer.from('x'),
      new Date('2026-11-29T10:00:00Z'),
      { 'Content-Type': 'application/pdf' },
    );
    expect(url).toBe('http://127.0.0.1:9000/files/attachments/7/a%20b%281%29');
    expect(headers['x-amz-content-sha256']).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=k\/20261129\/eu-central-1\/s3\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  });
});
