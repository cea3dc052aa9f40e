import { notificationsV1 } from "@payin/proto";

export const SERVICE_NAMES = [notificationsV1.NotificationsService.typeName];
