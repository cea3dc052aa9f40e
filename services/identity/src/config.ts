import { port, serviceBase } from "@payin/config";

export const configSchema = { ...serviceBase, IDENTITY_PORT: port(50051) };
